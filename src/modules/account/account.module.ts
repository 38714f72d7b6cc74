import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import {
  API_KEY_USAGE_QUEUE,
  ApiKeyUsageProducer,
} from './api-key-usage.queue';
import { ApiKey } from './api-key.entity';
import { ApiKeyService } from './api-key.service';
import { UserController } from './user.controller';
import { User } from './user.entity';
import { UserService } from './user.service';

/** Users and their API keys. */
@Module({
  imports: [
    TypeOrmModule.forFeature([User, ApiKey]),
    BullModule.registerQueue({ name: API_KEY_USAGE_QUEUE }),
  ],
  controllers: [UserController],
  providers: [UserService, ApiKeyService, ApiKeyUsageProducer],
  exports: [UserService, ApiKeyService],
})
export class AccountModule {}
