import { createHash } from 'node:crypto';
import { formatTimestamp } from '../../common/timestamps';
import { ResourceRenderer } from '../../http/json-api/resource';
import { User } from './user.entity';

/** `users`: the key's owner, as GET /v1/users/me shows it (camelCase timestamps, as the reference has them). */
export const userRenderer: ResourceRenderer<User> = {
  type: 'users',
  relationships: {},
  id: (user) => String(user.id),
  attributes: (user) => ({
    name: user.name,
    email: user.email,
    color: user.color,
    avatar_url: user.avatarUrl ?? gravatarUrl(user.email),
    has_custom_avatar: user.avatarUrl !== null,
    createdAt: formatTimestamp(user.createdAt),
    updatedAt: formatTimestamp(user.updatedAt),
  }),
};

function gravatarUrl(email: string): string {
  const hash = createHash('md5')
    .update(email.trim().toLowerCase())
    .digest('hex');
  return `https://www.gravatar.com/avatar/${hash}?d=blank`;
}
