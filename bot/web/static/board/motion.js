/* Checkers in motion: one flown from where it is to where it goes (or stays), a pressed one waiting
 * dimmed on its destination until the server answers. Animations never show a move as made. */

import { S } from "./state.js";
import { layers } from "./draw.js";

export function centreOf(node) {
  var m = /translate\(([-\d.]+)[ ,]+([-\d.]+)\)/.exec(node.getAttribute("transform") || "");
  return m ? [+m[1], +m[2]] : [0, 0];
}

export function place(node, p) { node.style.transform = "translate(" + p[0] + "px, " + p[1] + "px)"; }

// A pressed checker waits on its destination, dimmed, until the server answers: the state redraws the
// board, a refusal puts it back. It is drawn as pending, never as a move made.
export function pending(piece, from, to) {
  var copy = piece.cloneNode(true);
  copy.removeAttribute("data-point");
  copy.removeAttribute("transform");
  copy.classList.add("floating", "pending");
  copy.classList.remove("movable", "selected");
  layers.drag.appendChild(copy);
  piece.classList.add("lifted");
  animate(copy, from, to, false);
}

export function animate(node, from, to, remove) {
  var done = function () {
    if (remove && node.parentNode) { node.parentNode.removeChild(node); }
  };
  place(node, to);
  if (S.reduceMotion || !node.animate) { done(); return Promise.resolve(); }
  var a = node.animate([
    { transform: "translate(" + from[0] + "px, " + from[1] + "px)" },
    { transform: "translate(" + to[0] + "px, " + to[1] + "px)" }
  ], { duration: 140, easing: "ease-out" });
  return a.finished.then(done, done);
}
