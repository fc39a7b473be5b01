"""A game in words and as a picture's view, shared by the fronts: captions and status lines (captions) and
the render.view BoardView of a table (board_view); render/gallery.py's sample boards in the bot's every
language (gallery); a tournament's pictures, the knockout's bracket and the arena's podium, as render/ draws
them (tournament)."""
