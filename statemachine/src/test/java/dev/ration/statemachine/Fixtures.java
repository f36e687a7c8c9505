package dev.ration.statemachine;

import dev.ration.wire.lease.Limit;
import dev.ration.statemachine.command.LeaseCommand.AcquireLease;
import dev.ration.statemachine.command.Batch;
import dev.ration.statemachine.command.Command;
import dev.ration.statemachine.command.Proposal;
import dev.ration.statemachine.command.LeaseCommand.RenewLease;
import dev.ration.statemachine.command.RequestKey;
import dev.ration.statemachine.command.LeaseCommand.ReturnLease;
import dev.ration.statemachine.command.LeaseCommand.SetLimit;
import dev.ration.wire.Mode;
import dev.ration.wire.Policy;
import dev.ration.statemachine.result.Result;
import java.util.ArrayList;
import java.util.List;

/** Small builders for tests: commands with readable defaults, batches, key sequences. */
public final class Fixtures {
  private Fixtures() {}

  public static SetLimit setLimit(String tenant, String resource, long rate, long burst,
      long durationMillis, long graceMillis) {
    return new SetLimit(new Limit(tenant, resource, rate, burst, Mode.HARD, durationMillis, graceMillis, 0,
        Policy.FREE_CAPACITY, 0));
  }

  public static AcquireLease acquire(String holder, long rate, long burst) {
    return new AcquireLease("t", "r", holder, rate, burst);
  }

  public static RenewLease renew(long leaseId, long version, long rate, long burst) {
    return new RenewLease(leaseId, version, rate, burst, 0, 0, 0);
  }

  public static ReturnLease giveBack(long leaseId, long version, long unused) {
    return new ReturnLease(leaseId, version, unused);
  }

  public static Batch batch(long timeMillis, Command... commands) {
    List<Proposal> proposals = new ArrayList<>();
    for (Command c : commands) {
      proposals.add(new Proposal(RequestKey.NONE, c));
    }
    return Batch.of(timeMillis, proposals);
  }

  /** Applies single-command entries at increasing indexes; remembers the next index. */
  public static final class Driver {
    private final CoordinatorState state;
    private long index;
    private long term = 1;

    public Driver(CoordinatorState state) {
      this.state = state;
      this.index = state.appliedIndex() + 1;
    }

    public Result at(long timeMillis, Command command) {
      return at(timeMillis, RequestKey.NONE, command);
    }

    public Result at(long timeMillis, RequestKey key, Command command) {
      List<Result> results =
          state.apply(term, index++, Batch.of(timeMillis, List.of(new Proposal(key, command))));
      state.verify();
      return results.get(0);
    }

    public List<Result> batch(Batch batch) {
      List<Result> results = state.apply(term, index++, batch);
      state.verify();
      return results;
    }

    public long nextIndex() {
      return index;
    }
  }
}
