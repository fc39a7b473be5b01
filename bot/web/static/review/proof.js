/* The dice proof checked in the player's own browser, with crypto.subtle, exactly as docs/fairness.md says:
 * SHA-256(seed) is the commitment shown before the game; SHA-256(white's part || black's part) is the seed
 * (where the parts are given); roll n is the first two accepted bytes (b < 252, die b % 6 + 1) of
 * HMAC-SHA256(key = the seed's 32 bytes, "GAME/N:n:WHITE_SEED:BLACK_SEED:k"), k = 0, 1, ...; every roll of
 * the record is the derived one, and the bot derived as many rolls as the record shows or one more
 * (engine/fair_dice.py Verdict.ok). Pure: the answer is {ok: true, count} or {failed: key, args}. */

const ACCEPT_BELOW = 252;

function bytes(hex) {
  if (typeof hex !== "string" || !/^[0-9a-fA-F]{64}$/.test(hex)) { return null; }
  var out = new Uint8Array(32);
  for (var i = 0; i < 32; i++) { out[i] = parseInt(hex.substr(i * 2, 2), 16); }
  return out;
}

function hex(buffer) {
  return Array.prototype.map.call(new Uint8Array(buffer), function (b) {
    return (b < 16 ? "0" : "") + b.toString(16);
  }).join("");
}

function sha256(data) { return crypto.subtle.digest("SHA-256", data).then(hex); }

// Roll `n` of the game named `game` from the HMAC key of the seed: [first die, second die].
export function roll(key, game, n, clients) {
  var dice = [];
  function block(k) {
    var message = new TextEncoder().encode(game + ":" + n + ":" + clients[0] + ":" + clients[1] + ":" + k);
    return crypto.subtle.sign("HMAC", key, message).then(function (digest) {
      var d = new Uint8Array(digest);
      for (var i = 0; i < d.length && dice.length < 2; i++) {
        if (d[i] < ACCEPT_BELOW) { dice.push(d[i] % 6 + 1); }
      }
      return dice.length < 2 ? block(k + 1) : dice;
    });
  }
  return block(0);
}

function same(a, b) { return a.length === b.length && a[0] === b[0] && a[1] === b[1]; }

export function verify(proof) {
  if (!window.crypto || !crypto.subtle || !window.TextEncoder) { return Promise.resolve({ failed: "noCrypto" }); }
  var seed = bytes(proof.seed), parts = proof.parts, clients = proof.clients || [];
  var rolls = proof.rolls || [], made = proof.made;
  if (!seed || !bytes(proof.commitment)) { return Promise.resolve({ failed: "failCommitment" }); }
  return sha256(seed).then(function (found) {
    if (found !== proof.commitment.toLowerCase()) { throw { failed: "failCommitment" }; }
    if (!parts) { return null; }
    var a = bytes(parts[0]), b = bytes(parts[1]);
    if (!a || !b) { throw { failed: "failParts" }; }
    var joined = new Uint8Array(64);
    joined.set(a, 0);
    joined.set(b, 32);
    return sha256(joined).then(function (whole) {
      if (whole !== proof.seed.toLowerCase()) { throw { failed: "failParts" }; }
    });
  }).then(function () {
    return crypto.subtle.importKey("raw", seed, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  }).then(function (key) {
    var n = 0, count = Math.max(rolls.length, made);
    function next() {
      if (n >= count) { return null; }
      return roll(key, proof.game, n, clients).then(function (derived) {
        if (n < rolls.length && !same(derived, rolls[n])) {
          throw { failed: "failRoll", args: { n: n, derived: derived.join("-"), recorded: rolls[n].join("-") } };
        }
        n += 1;
        return next();
      });
    }
    return next();
  }).then(function () {
    if (!(made - rolls.length >= 0 && made - rolls.length <= 1)) {
      return { failed: "failCount", args: { made: made, rolls: rolls.length } };
    }
    return { ok: true, count: rolls.length };
  }, function (problem) {
    return problem && problem.failed ? problem : { failed: "noCrypto" };
  });
}
