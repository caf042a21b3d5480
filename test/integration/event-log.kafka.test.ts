import { eventLogContract } from '../contract/event-log.contract.ts';
import { requireKafka, testKafkaEventLog } from '../support/kafka.ts';

// Against the broker of infra/local/kafka.sh (npm test starts it through infra/local/up.sh).
// Every client checks the broker first, so a missing broker fails each test, never skips it.
eventLogContract('kafka', async () => {
  await requireKafka();
  return testKafkaEventLog();
});
