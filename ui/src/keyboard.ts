/**
 * The board's keys (docs/board.md): `/` goes to the view's search (or the graph's focus field),
 * `j` and `k` move to the next and previous card, Enter opens the card in focus (it is a link),
 * Escape leaves a field. Keys typed into a field stay there.
 */
export function installKeys(root: HTMLElement): void {
  document.addEventListener('keydown', (event) => {
    if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return;
    const target = event.target as HTMLElement;
    if (target.closest('input, select, textarea')) {
      if (event.key === 'Escape') target.blur();
      return;
    }
    if (event.key === '/') {
      const field = root.querySelector<HTMLInputElement>('input[name="q"], input[name="focus"]');
      if (!field) return;
      event.preventDefault();
      field.focus();
    } else if (event.key === 'j' || event.key === 'k') {
      const cards = [...root.querySelectorAll<HTMLAnchorElement>('li.card a.node-link')];
      if (cards.length === 0) return;
      event.preventDefault();
      const at = cards.findIndex((card) => card === document.activeElement);
      const next = at < 0 ? (event.key === 'j' ? 0 : cards.length - 1) : Math.min(cards.length - 1, Math.max(0, at + (event.key === 'j' ? 1 : -1)));
      cards[next]!.focus();
      cards[next]!.scrollIntoView({ block: 'nearest' });
    }
  });
}
