import { Injectable } from '@nestjs/common';
import { MailMessage } from './mail-message.entity';
import { MailKind, RenderedMail } from './mail-kinds';

/** Renders the messages of one kind from the records they are about. */
export interface MailRenderer {
  readonly kind: MailKind;
  /** Null when the record is gone: the message cannot be sent. */
  render(message: MailMessage): Promise<RenderedMail | null>;
}

/** The renderer of each kind; each registers itself from `onModuleInit`. */
@Injectable()
export class MailRenderers {
  private readonly renderers = new Map<MailKind, MailRenderer>();

  register(renderer: MailRenderer) {
    if (this.renderers.has(renderer.kind))
      throw new Error(`Mail renderer "${renderer.kind}" is registered twice`);
    this.renderers.set(renderer.kind, renderer);
  }

  render(message: MailMessage): Promise<RenderedMail | null> {
    const renderer = this.renderers.get(message.kind);
    if (!renderer)
      throw new Error(`No mail renderer for the kind "${message.kind}"`);
    return renderer.render(message);
  }
}
