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

export class CreateWebhookAttributes {
  @IsString()
  @MaxLength(2048)
  url: string;

  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(WEBHOOK_EVENT_NAMES.length)
  @ArrayUnique()
  @IsIn(WEBHOOK_EVENT_NAMES, { each: true })
  events: string[];

  @IsString()
  @Length(6, 40)
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
  @ArrayMinSize(1)
  @ArrayMaxSize(WEBHOOK_EVENT_NAMES.length)
  @ArrayUnique()
  @IsIn(WEBHOOK_EVENT_NAMES, { each: true })
  events?: string[];

  @ValidateIf((o: UpdateWebhookAttributes) => o.secret !== undefined)
  @IsString()
  @Length(6, 40)
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
