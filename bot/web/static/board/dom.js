/* Small DOM helpers: an element by id, an SVG or HTML element made, a node emptied. */

const SVGNS = "http://www.w3.org/2000/svg";

export function $(id) { return document.getElementById(id); }

export function el(tag, attrs, parent, text) {
  var node = document.createElementNS(SVGNS, tag);
  if (attrs) {
    Object.keys(attrs).forEach(function (k) { node.setAttribute(k, attrs[k]); });
  }
  if (text !== undefined) { node.textContent = text; }
  if (parent) { parent.appendChild(node); }
  return node;
}

export function html(tag, className, parent, text) {
  var node = document.createElement(tag);
  if (className) { node.className = className; }
  if (text !== undefined) { node.textContent = text; }
  if (parent) { parent.appendChild(node); }
  return node;
}

export function clear(node) { while (node.firstChild) { node.removeChild(node.firstChild); } }
