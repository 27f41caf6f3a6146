/**
 * One message handed from a page to the next (after saving a form the list says what happened).
 * The receiving page takes it once; it does not survive a reload.
 */
export interface FlashMessage {
  tone: 'success' | 'error' | 'info';
  text: string;
}

export class Flash {
  message = $state<FlashMessage | null>(null);

  show(message: FlashMessage): void {
    this.message = message;
  }

  take(): FlashMessage | null {
    const message = this.message;
    this.message = null;
    return message;
  }
}
