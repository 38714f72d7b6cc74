import {
  IsInt,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
} from 'class-validator';

/** The `data` part of an upload (before the `file` part). */
export class FileUploadAttributes {
  /** The name buyers see; default: the uploaded file's own name. */
  @IsOptional()
  @IsString()
  @MaxLength(255)
  name?: string;

  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(2147483647)
  sort?: number;
}

export class FileUpdateAttributes {
  @IsOptional()
  @IsString()
  @MaxLength(255)
  name?: string;

  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(2147483647)
  sort?: number;
}

export const FILE_UPLOAD = {
  type: 'files',
  attributes: FileUploadAttributes,
  relationships: { variant: { type: 'variants', required: true } },
};

export const FILE_UPDATE = {
  type: 'files',
  attributes: FileUpdateAttributes,
  update: true,
};
