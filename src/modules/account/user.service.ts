import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { QueryFailedError, Repository } from 'typeorm';
import { User } from './user.entity';
import { AccountErrors } from './account.errors';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

@Injectable()
export class UserService {
  constructor(
    @InjectRepository(User) private readonly users: Repository<User>,
  ) {}

  async create(input: { email: string; name: string }): Promise<User> {
    const email = input.email.trim();
    const name = input.name.trim();
    if (!EMAIL.test(email)) throw AccountErrors.invalidEmail();
    if (!name) throw AccountErrors.attributeRequired('name');
    try {
      return await this.users.save(
        this.users.create({ email, name, color: '#898FA9', avatarUrl: null }),
      );
    } catch (error) {
      if (
        error instanceof QueryFailedError &&
        (error.driverError as { code?: string }).code === '23505'
      ) {
        throw AccountErrors.emailTaken(email);
      }
      throw error;
    }
  }

  findById(id: number): Promise<User | null> {
    return this.users.findOneBy({ id });
  }

  findByEmail(email: string): Promise<User | null> {
    return this.users
      .createQueryBuilder('user')
      .where('lower(user.email) = lower(:email)', { email })
      .getOne();
  }
}
