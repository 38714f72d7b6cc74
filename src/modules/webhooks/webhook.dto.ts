import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsBoolean,
  IsIn,
  IsOptional,
  IsString,
  Length,
  MaxLength,
  ValidateIf,
} from 'class-validator';
import { WEBHOOK_EVENT_NAMES } from './webhook-events';

const EVENTS_MESSAGE = `Each event must be one of: ${WEBHOOK_EVENT_NAMES.join(', ')}.`;

export class CreateWebhookAttributes {
  @IsString()
  @MaxLength(2048)
  url: string;

  @IsArray()
  @ArrayMinSize(1, { message: 'events must name at least one event.' })
  @ArrayMaxSize(WEBHOOK_EVENT_NAMES.length)
  @ArrayUnique({ message: 'events must not repeat an event.' })
  @IsIn(WEBHOOK_EVENT_NAMES, { each: true, message: EVENTS_MESSAGE })
  events: string[];

  @IsString()
  @Length(6, 40, { message: 'The secret must be 6 to 40 characters.' })
  secret: string;

  @IsOptional()
  @IsBoolean()
  test_mode?: boolean;
}

export class UpdateWebhookAttributes {
  @ValidateIf((o: UpdateWebhookAttributes) => o.url !== undefined)
  @IsString()
  @MaxLength(2048)
  url?: string;

  @ValidateIf((o: UpdateWebhookAttributes) => o.events !== undefined)
  @IsArray()
  @ArrayMinSize(1, { message: 'events must name at least one event.' })
  @ArrayMaxSize(WEBHOOK_EVENT_NAMES.length)
  @ArrayUnique({ message: 'events must not repeat an event.' })
  @IsIn(WEBHOOK_EVENT_NAMES, { each: true, message: EVENTS_MESSAGE })
  events?: string[];

  @ValidateIf((o: UpdateWebhookAttributes) => o.secret !== undefined)
  @IsString()
  @Length(6, 40, { message: 'The secret must be 6 to 40 characters.' })
  secret?: string;
}

export const CREATE_WEBHOOK = {
  type: 'webhooks',
  attributes: CreateWebhookAttributes,
  relationships: { store: { type: 'stores', required: true } },
};

export const UPDATE_WEBHOOK = {
  type: 'webhooks',
  attributes: UpdateWebhookAttributes,
  update: true,
};
