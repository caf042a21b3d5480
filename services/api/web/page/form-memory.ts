/**
 * What a person has typed survives a language switch (docs/web.md "Language switch keeps what was
 * typed"). The switch draws the whole page again in the other language, so every form is new;
 * before that, the changed fields are noted by id, and the new page's fields with the same ids
 * get them back. A restored field gets the events a person's typing would give (input, change),
 * so the parts that follow a field (the draft's "Update preview", the warning's Start, the
 * history's filters) follow it here too.
 */

type Control = HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;

interface KeptField {
  value: string;
  checked: boolean;
  selection: { start: number; end: number } | null;
}

export interface KeptForms {
  fields: Map<string, KeptField>;
}

/** Marks a field given back here: a value loaded later (the saved settings) does not overwrite it. */
const RESTORED = 'data-kept';

function controlsIn(root: ParentNode): Control[] {
  // A chosen file is read at once and its field emptied, so a file field never holds anything to keep.
  return [...root.querySelectorAll<Control>('input[id]:not([type=file]), select[id], textarea[id]')];
}

/** A field the person changed: its value differs from the one it was drawn with. */
function changed(control: Control): boolean {
  if (control instanceof HTMLSelectElement) return [...control.options].some((option) => option.selected !== option.defaultSelected);
  if (control instanceof HTMLInputElement && (control.type === 'checkbox' || control.type === 'radio')) return control.checked !== control.defaultChecked;
  return control.value !== control.defaultValue || control.hasAttribute(RESTORED);
}

function selectionOf(control: Control): KeptField['selection'] {
  try {
    const { selectionStart: start, selectionEnd: end } = control as HTMLInputElement;
    return start === null || end === null ? null : { start, end };
  } catch {
    // Number, date and e-mail fields have no selection to ask for.
    return null;
  }
}

/** The changed fields of `roots` (ids are unique on the page), before it is drawn again. */
export function keepForms(...roots: ParentNode[]): KeptForms {
  stopWatching();
  const fields = new Map<string, KeptField>();
  for (const control of roots.flatMap(controlsIn)) {
    if (!changed(control)) continue;
    fields.set(control.id, {
      value: control.value,
      checked: control instanceof HTMLInputElement && control.checked,
      selection: selectionOf(control),
    });
  }
  return { fields };
}

/** Watches for kept fields drawn after the switch (a form built once its data is loaded). */
let watching: MutationObserver | null = null;

function stopWatching(): void {
  watching?.disconnect();
  watching = null;
}

/**
 * Gives the kept fields back to the fields of `roots` with the same ids. A form drawn only once
 * its data has loaded (the invitation's, after the switch asks for it again) gets its fields back
 * when they appear: the roots are watched until every kept field is given back, the page is
 * switched again, or the person types or clicks somewhere (what they do then is theirs).
 */
export function restoreForms(kept: KeptForms, ...roots: ParentNode[]): void {
  stopWatching();
  const pending = new Map(kept.fields);
  const pass = () => {
    for (const control of roots.flatMap(controlsIn)) {
      const field = pending.get(control.id);
      if (!field) continue;
      pending.delete(control.id);
      give(control, field);
    }
  };
  // A restored field's events may draw another field (none today; a select could add one).
  for (let round = 0; round < 3 && pending.size > 0; round++) pass();
  if (pending.size === 0) return;
  const observer = new MutationObserver(() => {
    pass();
    if (pending.size === 0) stopWatching();
  });
  for (const root of roots) observer.observe(root, { childList: true, subtree: true });
  watching = observer;
  const personActs = (event: Event) => {
    if (!event.isTrusted) return;
    if (watching === observer) stopWatching();
    for (const type of ['keydown', 'pointerdown']) document.removeEventListener(type, personActs, true);
  };
  for (const type of ['keydown', 'pointerdown']) document.addEventListener(type, personActs, true);
}

function give(control: Control, field: KeptField): void {
  if (control instanceof HTMLInputElement && (control.type === 'checkbox' || control.type === 'radio')) control.checked = field.checked;
  else control.value = field.value;
  control.setAttribute(RESTORED, '');
  if (field.selection) {
    try {
      (control as HTMLInputElement).setSelectionRange(field.selection.start, field.selection.end);
    } catch {
      // As in selectionOf: a field without a selection.
    }
  }
  control.dispatchEvent(new Event('input', { bubbles: true }));
  control.dispatchEvent(new Event('change', { bubbles: true }));
}

/**
 * Sets a value loaded from the API unless the person's own value was given back to the field.
 * The loaded value becomes the field's drawn value, so only the person's changes count as typed.
 */
export function fillLoaded(control: Control, value: string): void {
  const shown = control.hasAttribute(RESTORED) ? control.value : value;
  // A select's drawn option changes its chosen one too, so the value is set again after.
  if (control instanceof HTMLSelectElement) for (const option of control.options) option.defaultSelected = option.value === value;
  else control.defaultValue = value;
  control.value = shown;
}
