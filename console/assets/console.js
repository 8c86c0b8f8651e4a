// Dispatch console: small enhancements only; every page works without this file.
// - "/" focuses the page's search box (unless you are typing in a field);
// - forms marked data-confirm ask first in a <dialog> (Esc or Cancel closes it, focus returns
//   to the button that opened it); without JavaScript they submit directly.

const typing = (element) =>
  element instanceof HTMLInputElement || element instanceof HTMLTextAreaElement ||
  element instanceof HTMLSelectElement || (element instanceof HTMLElement && element.isContentEditable);

document.addEventListener("keydown", (event) => {
  if (event.key !== "/" || event.ctrlKey || event.metaKey || event.altKey || typing(document.activeElement)) return;
  const search = document.querySelector("input[type=search]");
  if (!search) return;
  event.preventDefault();
  search.focus();
  search.select();
});

function confirmDialog(message, confirmLabel, onConfirm, returnFocus) {
  const dialog = document.createElement("dialog");
  dialog.setAttribute("aria-labelledby", "confirm-text");
  const text = document.createElement("p");
  text.id = "confirm-text";
  text.textContent = message;
  const actions = document.createElement("div");
  actions.className = "actions";
  const cancel = document.createElement("button");
  cancel.type = "button";
  cancel.className = "secondary";
  cancel.textContent = "Cancel";
  const confirm = document.createElement("button");
  confirm.type = "button";
  confirm.className = "danger";
  confirm.textContent = confirmLabel;
  actions.append(cancel, confirm);
  dialog.append(text, actions);
  document.body.append(dialog);
  // Esc fires "cancel" and closes a modal <dialog> natively; "close" cleans up either way.
  dialog.addEventListener("close", () => {
    dialog.remove();
    if (returnFocus) returnFocus.focus();
  });
  cancel.addEventListener("click", () => dialog.close());
  confirm.addEventListener("click", () => {
    dialog.close();
    onConfirm();
  });
  dialog.showModal();
  cancel.focus();
}

document.addEventListener("submit", (event) => {
  const form = event.target;
  if (!(form instanceof HTMLFormElement) || !form.dataset.confirm || form.dataset.confirmed === "yes") return;
  event.preventDefault();
  const button = event.submitter instanceof HTMLElement ? event.submitter : form.querySelector("button");
  confirmDialog(form.dataset.confirm, (button && button.textContent.trim()) || "Confirm", () => {
    form.dataset.confirmed = "yes";
    form.requestSubmit(event.submitter || undefined);
  }, button);
});
