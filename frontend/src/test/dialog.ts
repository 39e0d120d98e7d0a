// jsdom has no <dialog> methods: these open and close it by its attribute, as browsers do.

/** Gives `HTMLDialogElement` the `showModal` and `close` jsdom lacks (for `beforeAll`). */
export function polyfillDialog(): void {
  HTMLDialogElement.prototype.showModal ??= function (this: HTMLDialogElement) {
    this.setAttribute("open", "");
  };
  HTMLDialogElement.prototype.close ??= function (this: HTMLDialogElement) {
    this.removeAttribute("open");
  };
}
