package dev.ration.client.quota;

import java.util.List;

/**
 * A page of the usage log ({@link QuotaClient#readUsage}).
 *
 * @param records the records, in sequence order; empty when there is nothing after the start
 * @param cursor the consumer's acknowledged sequence as of the read (0 for none, or when read
 *     without a consumer)
 * @param lastSequence the log's last sequence as of the read: the consumer is caught up when
 *     the last record read has it
 */
public record UsageBatch(List<UsageRecord> records, long cursor, long lastSequence) {
  /**
   * A batch; {@code records} is copied.
   *
   * @param records the records
   * @param cursor the consumer's acknowledged sequence
   * @param lastSequence the log's last sequence
   */
  public UsageBatch {
    records = List.copyOf(records);
  }

  /**
   * The sequence to acknowledge after processing this batch: the last record's, or the cursor
   * when the batch is empty.
   *
   * @return the sequence up to which this batch has been read
   */
  public long readUpTo() {
    return records.isEmpty() ? cursor : records.get(records.size() - 1).sequence();
  }
}
