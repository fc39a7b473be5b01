"""Every Redis key the bot writes: its name, what it holds, how long it lives. Live data depends on these
names and values: change one only with a migration.

Games and their boards (bot/storage/games.py; JSON unless said otherwise):
  nardy:game:<id>             the table (Table.to_json(): engine Game.to_json(), players, version, turn state)
  nardy:game:<id>:messages    hash: board key ("g", "w", "b") -> message id of the board message, and
                              "v:<board key>" -> the game version that board shows (after a successful edit),
                              "x:<board key>" -> when that board's player was found unreachable (403: blocked the
                              bot, or the chat is gone; cleared when the board is shown again)
  nardy:chat:<chat_id>:game   the id of the chat's current game (one live game per chat)
  nardy:user:<user_id>:games  set: ids of the games the user plays or played (for /forget)
  nardy:drawing:<id>          the token of the worker drawing the game's boards now (a lease of a minute)
  nardy:game:<id>:analysis    hash: game number of the series -> the expert's analysis of that finished game
                              as the Mini App's review shows it (JSON: plays, equities, marks, win chances; no
                              names, no user ids: those are read from the game when shown; bot/storage/
                              reviews.py). Expires with the game (its TTL is set to the game's left at each
                              write) and is deleted with it (/forget). ~10-20 KB for a 100-play game
Schedules (bot/storage/schedules.py; each save of a game sets its entries):
  nardy:unshown               sorted set: ids of games whose boards may not show their last change, scored by
                              when a worker should (re)draw them (each save marks its game; a shown board clears)
  nardy:remind                sorted set: ids of games whose player on turn is due a turn reminder, scored by
                              when (each save sets or clears its game's entry; a sent reminder leaves)
  nardy:outages               sorted set: "<start>:<end>" of each time a worker could not reach Redis, scored
                              by its end (a day); a running clock gets that time back
  nardy:reminded:<id>         hash: "n" the game number of the series, "w" and "b" the turn reminders each side
                              was sent in that game (as long as the game lives)
Rooms: where games start (bot/storage/rooms.py):
  nardy:lobby:<chat_id>       a group's open lobby (one per chat)
  nardy:invite:<token>        a friend invitation (used once, expires)
  nardy:user:<user_id>:invite the token of the user's pending invitation
  nardy:challenge:<token>     an inline challenge card's challenge (used up by the game it starts; 1 day)
  nardy:user:<id>:challenge:<variant>:<target>  the token of the user's open challenge of that kind (1 day)
  nardy:seek:<format>         sorted set: user ids looking for a quick-match opponent, scored by when they began
                              (entries whose search ended are stale: skipped and removed by the next look)
  nardy:user:<user_id>:seek   the user's quick-match search (Seeker: variant, waiting message, name, language,
                              since, token); the queue's entry and this record are written and ended together
Limits (bot/storage/limits.py):
  nardy:limit:<who>:<kind>    hash: a token bucket of inbound updates (a user's or a chat's presses, commands)
  nardy:once:<what>           "1": something done at most once in a while (a re-pointed board, a claim offer)
  nardy:update:<update_id>    "1": a webhook update some worker took (repeated deliveries are dropped; 1 hour)
Users (bot/storage/users.py):
  nardy:user:<user_id>:settings  hash: the user's /settings ("lang", "confirm", "theme", "top"; bot/service/settings.py),
                              365 days after the last read or change
  nardy:user:<user_id>:dice   the bot's secret part for the dice of the user's next game (64 hex digits; its
                              SHA-256 is shown by /seed before that game; taken and replaced when a game of
                              theirs starts; 365 days)
  nardy:user:<user_id>:dice:computer  likewise the computer's part for the user's next game against it (its
                              SHA-256 shown by /seed too, so the computer's part is bound before the user's seed)
  nardy:home:<chat>:<message>, nardy:home:i:<inline message>  the home of a message with buttons
                              (bot/telegram/button_homes.py): what its presses may name
  nardy:user:<user_id>:homes  set: the home keys that name the user (their menus and questions), for /forget
  nardy:media:<name>          a file_id Telegram gave a file the bot sent: a picture in the media chat (the
                              challenge cards' boards), a game's replay ("replay:<id>:<n>:<language>"); 30 days
Results (bot/storage/results.py; "u" stands for nardy:user:<id>; bytes are rough, for a player active in
both variants):
  u:stats                     hash: "name" (for display), per variant "<variant>:<counter>" (games, wins,
                              losses, mars_won, mars_lost, koks_won, koks_lost, points_won, points_lost,
                              streak, best_streak, rating, experience, rated) and the computer's block
                              "<variant>:cpu:<level>:<games|wins|points_won|points_lost>". ~0.5-1 KB.
  u:rating:<variant>          list: the last RATING_POINTS (100) ratings, "<unix time> <rating>", oldest
                              first. ~3.3 KB each when full.
  u:history                   list: the last HISTORY_GAMES (20) games, JSON, newest first. ~4 KB. The
                              opponent is kept by user id, their name read when shown: an opponent who used
                              /forget (or whose statistics expired) shows as "a former player".
  u:boards                    set: the chat leaderboards the player is on (to update and forget them
                              without a scan). ~170 bytes a chat and variant.
  Each is set to expire USER_TTL (365 days) after it was last written: a player away for a year is
  forgotten. Their entries on leaderboards are dropped by the next /top that meets them. About 12 KB for a
  player with full histories in both variants: 1 GB holds some 80,000 such players.
  nardy:top:chat:<chat_id>:<variant>  sorted set: user id -> rating. ~30-80 bytes a player; 365 days after
                              the chat's last group game between people (CHAT_TTL).
  nardy:top:<variant>         sorted set: user id -> rating, the global board. ~30-80 bytes a player; 365 days
                              after its last change (bounded by the players with MIN_RATED_MATCHES rated
                              matches; those whose statistics expired are dropped when /top meets them).
  nardy:recorded:<key>        the outcome of recording that game (JSON of ratings, no names): the marker
                              that makes recording idempotent. ~280 bytes; MARKER_TTL (30 days).
  u:settings, field "top"     "hidden": the player hid from global leaderboards (/settings).
Tournaments (bot/storage/tournaments.py; bot/model/tournament.py):
  nardy:tourney:<id>          the tournament (Tournament.to_json(): settings, players, games, version); 30
                              days after its last change (a finished one: TOURNEY_KEPT, for /tournament last)
  nardy:tourney:<id>:players  hash: user id -> the entrant (JSON), while it signs up (sign_up.lua: no
                              retry however many press Join at once); folded into the record at the start
  nardy:tourney:<id>:inbox    list: ids of its games that ended, pushed by the game's own save (save_game.lua)
                              and taken by the tournament's next save (save_tournament.lua)
  nardy:chat:<chat_id>:tourney  the id of the group's live tournament (one per group)
  nardy:chat:<chat_id>:tourney:last  the id of the group's last finished tournament (TOURNEY_KEPT)
  nardy:chat:<chat_id>:tourney:admins  "1": only the group's administrators may create a tournament (365 days)
  nardy:tourneys              sorted set: live tournaments' ids, scored by when one is next due a look (its
                              start, its end, results in its inbox: now)
Active games live 30 days after their last change, finished ones 7 days, lobbies and invites 1 day;
a game's messages hash and its chats' pointers expire with the game, a user's games set after 30 days.

Some scripts build key names themselves (the quick match's, the results'): the bot's Redis is a single
node, not a Redis Cluster. The Lua spells out those names; the tests check that they agree with these.
"""

from __future__ import annotations

from bot.model.game_format import ALL_FORMATS

DAY = 24 * 3600
ACTIVE_TTL = 30 * DAY
FINISHED_TTL = 7 * DAY
LOBBY_TTL = DAY
INVITE_TTL = DAY
CHALLENGE_TTL = DAY
UPDATE_TTL = 3600
SETTINGS_TTL = 365 * DAY  # a user's settings, refreshed whenever they are read or changed
MEDIA_TTL = 30 * DAY
SEEK_GRACE = DAY  # seconds a search's keys outlive its timeout: a sweeper that was down still tells it
USER_TTL = 365 * DAY  # a player's statistics, rating, history: after their last recorded game
CHAT_TTL = 365 * DAY  # a chat's leaderboard: after the last game recorded there
MARKER_TTL = 30 * DAY  # a recorded game's marker (a retry after that would count it again)
TOURNEY_KEPT = 30 * DAY  # a finished tournament's record and the group's pointer to it (/tournament last)

SEEK_FORMATS = ALL_FORMATS  # one quick-match queue per game format (bot/model/game_format.py)

# ---------------------------------------------------------------------- games and their boards

GAME_PREFIX = "nardy:game:"
SHOWN_FIELD = "v:"  # prefix of the messages hash fields that hold the version a board shows
UNREACHABLE_FIELD = "x:"  # prefix of the messages hash fields: when a board's player was found unreachable


def game_key(game_id: str) -> str:
    return f"{GAME_PREFIX}{game_id}"


def messages_key(game_id: str) -> str:
    return f"nardy:game:{game_id}:messages"


def chat_key(chat_id: int) -> str:
    return f"nardy:chat:{chat_id}:game"


def user_games_key(user_id: int) -> str:
    return f"nardy:user:{user_id}:games"


def drawing_key(game_id: str) -> str:
    return f"nardy:drawing:{game_id}"


# ---------------------------------------------------------------------- schedules

UNSHOWN_KEY = "nardy:unshown"
REMIND_KEY = "nardy:remind"
CLOCKS_KEY = (
    "nardy:clocks"  # live games' clocks: "<id>" scored by when its flag falls, "<id>/warn" by the warning
)
WARN_SUFFIX = "/warn"
# Live games (not over), scored by the time of their last save (the bot's clock): each save adds or removes its
# game; the metrics' sampler counts them (nardy_games_live), dropping first any not saved for ACTIVE_TTL (a game
# that nobody finished, expired with its record).
LIVE_GAMES_KEY = "nardy:games:live"
OUTAGES_KEY = "nardy:outages"  # sorted set: "<start>:<end>" of each recent outage, scored by its end


LIVE_PREFIX = "nardy:live:"


def live_channel(game_id: str) -> str:
    """The pub/sub channel every save of the game publishes its new version on (the board pages listen)."""
    return f"{LIVE_PREFIX}{game_id}"


def analysis_key(game_id: str) -> str:
    return f"nardy:game:{game_id}:analysis"


def reminded_key(game_id: str) -> str:
    return f"nardy:reminded:{game_id}"


# ---------------------------------------------------------------------- rooms

INVITE_PREFIX = "nardy:invite:"
CHALLENGE_PREFIX = "nardy:challenge:"
SEEK_PREFIX = "nardy:seek:"


def lobby_key(chat_id: int) -> str:
    return f"nardy:lobby:{chat_id}"


def invite_key(token: str) -> str:
    return f"{INVITE_PREFIX}{token}"


def user_invite_key(user_id: int) -> str:
    return f"nardy:user:{user_id}:invite"


def challenge_key(token: str) -> str:
    return f"{CHALLENGE_PREFIX}{token}"


def user_challenge_key(user_id: int, variant: str, target: str | None) -> str:
    return f"nardy:user:{user_id}:challenge:{variant}:{target or '*'}"


def user_challenges_pattern(user_id: int) -> str:
    """A SCAN pattern for every open-challenge pointer of the user (/forget)."""
    return f"nardy:user:{user_id}:challenge:*"


def seek_key(variant: str) -> str:
    return f"{SEEK_PREFIX}{variant}"


def user_seek_key(user_id: int) -> str:
    return f"nardy:user:{user_id}:seek"


# ---------------------------------------------------------------------- limits


def limit_key(who: str, kind: str) -> str:
    return f"nardy:limit:{who}:{kind}"


def once_key(what: str) -> str:
    return f"nardy:once:{what}"


def update_key(update_id: int) -> str:
    return f"nardy:update:{update_id}"


# ---------------------------------------------------------------------- users


def user_key(user_id: int, what: str) -> str:
    return f"nardy:user:{user_id}:{what}"


def user_settings_key(user_id: int) -> str:
    return f"nardy:user:{user_id}:settings"


def dice_secret_key(user_id: int, computer: bool = False) -> str:
    """The user's pending part of their next game's dice secret; `computer`: the computer's part for the
    user's next game against it."""
    return f"nardy:user:{user_id}:dice" + (":computer" if computer else "")


HOME_TTL = 2 * 24 * 3600  # seconds a menu's, a lobby's or an invitation's message is written down


def home_key(where: str) -> str:
    """The home of a message with buttons (bot/telegram/button_homes.py): `where` is "<chat>:<message>" or
    "i:<inline message id>"."""
    return f"nardy:home:{where}"


def user_homes_key(user_id: int) -> str:
    """The homes of messages (bot/telegram/button_homes.py) that name the user: their menus and questions."""
    return f"nardy:user:{user_id}:homes"


def media_key(name: str) -> str:
    return f"nardy:media:{name}"


# ---------------------------------------------------------------------- results


def stats_key(user_id: int) -> str:
    return user_key(user_id, "stats")


def rating_key(user_id: int, variant: str) -> str:
    return user_key(user_id, f"rating:{variant}")


def history_key(user_id: int) -> str:
    return user_key(user_id, "history")


def boards_key(user_id: int) -> str:
    return user_key(user_id, "boards")


def chat_board_key(chat_id: int, variant: str) -> str:
    return f"nardy:top:chat:{chat_id}:{variant}"


def global_board_key(variant: str) -> str:
    return f"nardy:top:{variant}"


def marker_key(key: str) -> str:
    return f"nardy:recorded:{key}"


# ---------------------------------------------------------------------- tournaments

TOURNEYS_KEY = "nardy:tourneys"
TOURNEY_PREFIX = "nardy:tourney:"  # save_game.lua spells it out for a tournament game's inbox


def tourney_key(tourney_id: str) -> str:
    return f"{TOURNEY_PREFIX}{tourney_id}"


def tourney_inbox_key(tourney_id: str) -> str:
    return f"{TOURNEY_PREFIX}{tourney_id}:inbox"


def tourney_players_key(tourney_id: str) -> str:
    return f"{TOURNEY_PREFIX}{tourney_id}:players"


def chat_tourney_key(chat_id: int) -> str:
    return f"nardy:chat:{chat_id}:tourney"


def chat_tourney_admins_key(chat_id: int) -> str:
    return f"nardy:chat:{chat_id}:tourney:admins"


def chat_last_tourney_key(chat_id: int) -> str:
    return f"nardy:chat:{chat_id}:tourney:last"
