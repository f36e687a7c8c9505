package dev.ration.statemachine.query;

import dev.ration.statemachine.lease.LeaseView;
import dev.ration.statemachine.lease.LimitStatus;
import java.util.List;
import java.util.Optional;

/** Answers to {@link Query}. */
public sealed interface QueryResult {
  record LimitAnswer(Optional<LimitStatus> limit) implements QueryResult {}

  record LimitList(List<LimitStatus> limits) implements QueryResult {}

  record LeaseList(List<LeaseView> leases) implements QueryResult {}

  record StatusAnswer(
      long appliedTerm,
      long appliedIndex,
      long nowMillis,
      long epoch,
      long epochStartMillis,
      int limits,
      int leases,
      long idempotencyRecords)
      implements QueryResult {}
}
