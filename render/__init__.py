"""Board pictures for nardy: `render_board(view) -> bytes`, a pure function of a `BoardView`."""
