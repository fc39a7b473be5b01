/* The sandbox's start page (bot/web/sandbox.py): at /app/sandbox/ a sign-in by name; at /app/s/<seat>/home
 * (the seat's own folder, where its sign-in cookie goes) the games: the computer at a level, or a friend by
 * an invitation link (polled until the friend joins), and ?invite=<token> takes a friend's invitation.
 * No framework, no inline script (the same CSP as the board page). */
(function () {
  "use strict";

  var VARIANTS = [["short", "Short nardy"], ["long", "Long nardy"], ["short.3", "Short nardy, match to 3"],
    ["long.3", "Long nardy, match to 3"], ["short.5c", "Short nardy, match to 5, doubling cube"]];
  var $ = function (id) { return document.getElementById(id); };
  var params = new URLSearchParams(location.search);
  var invite = params.get("invite") || "";

  function fail(text) {
    var node = $("error");
    node.textContent = text;
    node.hidden = !text;
  }

  function post(path, body) {
    return fetch(path, {
      method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json" }, body: JSON.stringify(body)
    }).then(function (answer) {
      return answer.json().then(function (data) {
        if (answer.status === 401 && data.signin) { location.href = data.signin; }
        if (!answer.ok) { throw new Error(data.error || ("HTTP " + answer.status)); }
        return data;
      });
    });
  }

  function go(data) { location.href = data.next; }

  function signIn() {
    $("signin").hidden = false;
    $("invited").hidden = !invite;
    var guess = (navigator.language || "en").slice(0, 2).toLowerCase();
    if ($("lang").querySelector('option[value="' + guess + '"]')) { $("lang").value = guess; }
    $("signin").addEventListener("submit", function (event) {
      event.preventDefault();
      fail("");
      $("signin-go").disabled = true;
      post("signin", { name: $("name").value, lang: $("lang").value, invite: invite })
        .then(go, function (e) { fail(e.message); $("signin-go").disabled = false; });
    });
  }

  function waitForGame() {
    setTimeout(function () {
      fetch("me", { credentials: "same-origin" }).then(function (a) { return a.json(); }).then(function (me) {
        if (me.game) { location.href = "./?game=" + encodeURIComponent(me.game); } else { waitForGame(); }
      }, waitForGame);
    }, 1000);
  }

  function home() {
    Array.prototype.forEach.call(document.querySelectorAll("select.variant"), function (select) {
      VARIANTS.forEach(function (v) {
        var option = document.createElement("option");
        option.value = v[0];
        option.textContent = v[1];
        select.appendChild(option);
      });
    });
    fetch("me", { credentials: "same-origin" }).then(function (answer) {
      if (answer.status === 401) { location.href = "../../sandbox/" + (invite ? "?invite=" + invite : ""); return null; }
      return answer.json();
    }).then(function (me) {
      if (!me) { return; }
      $("home").hidden = false;
      $("me").textContent = me.name;
      if (me.game) {
        $("current").hidden = false;
        $("current-link").href = "./?game=" + encodeURIComponent(me.game);
      }
      if (invite) {
        post("accept", { token: invite }).then(go, function (e) { fail(e.message); });
      }
    }, function () { fail("The sandbox does not answer: is it still running?"); });
    $("levels").addEventListener("click", function (event) {
      var button = event.target.closest("button[data-level]");
      if (!button) { return; }
      fail("");
      post("computer", { variant: $("computer-variant").value, level: button.getAttribute("data-level") })
        .then(go, function (e) { fail(e.message); });
    });
    $("invite").addEventListener("click", function () {
      fail("");
      post("invite", { variant: $("friend-variant").value }).then(function (data) {
        $("invitation").hidden = false;
        $("link").value = data.link;
        $("link").select();
        waitForGame();
      }, function (e) { fail(e.message); });
    });
    $("link").addEventListener("focus", function () { $("link").select(); });
  }

  if (/\/home$/.test(location.pathname)) { home(); } else { signIn(); }
}());
