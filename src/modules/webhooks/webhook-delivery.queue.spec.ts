import { Queue } from 'bullmq';
import { deliveryJobId, WebhookDeliveryQueue } from './webhook-delivery.queue';

/** A stand-in for BullMQ's Queue holding at most one job, in a given state. */
function fakeQueue(state: string | null) {
  const calls: string[] = [];
  const job =
    state === null
      ? undefined
      : {
          getState: () => Promise.resolve(state),
          remove: () => {
            calls.push('remove');
            return Promise.resolve();
          },
          promote: () => {
            calls.push('promote');
            return Promise.resolve();
          },
        };
  const queue = {
    on: () => undefined,
    getJob: (id: string) => {
      calls.push(`get ${id}`);
      return Promise.resolve(job);
    },
    add: (_name: string, _data: unknown, opts: { jobId: string }) => {
      calls.push(`add ${opts.jobId}`);
      return Promise.resolve();
    },
  };
  return { queue: queue as unknown as Queue, calls };
}

describe('WebhookDeliveryQueue.ensure', () => {
  const due = new Date(Date.now() - 1000);
  const later = new Date(Date.now() + 60_000);
  const id = deliveryJobId('42', 3);

  it('uses ids without colons', () => {
    expect(id).toBe('delivery-42-3');
  });

  it.each([
    [null, due, [`get ${id}`, `add ${id}`]],
    ['failed', due, [`get ${id}`, 'remove', `add ${id}`]],
    ['completed', due, [`get ${id}`, 'remove', `add ${id}`]],
    ['delayed', due, [`get ${id}`, 'promote']],
    ['delayed', later, [`get ${id}`]],
    ['waiting', due, [`get ${id}`]],
    ['active', due, [`get ${id}`]],
  ])(
    'with a job in state %p acts as expected',
    async (state, dueAt, expected) => {
      const { queue, calls } = fakeQueue(state);
      await new WebhookDeliveryQueue(queue).ensure('42', 3, dueAt);
      expect(calls).toEqual(expected);
    },
  );
});
