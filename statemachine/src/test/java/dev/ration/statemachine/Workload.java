package dev.ration.statemachine;

import dev.ration.wire.lease.Limit;
import dev.ration.statemachine.command.LeaseCommand.AcquireLease;
import dev.ration.statemachine.command.Batch;
import dev.ration.statemachine.command.Command;
import dev.ration.statemachine.command.LeaseCommand.NewEpoch;
import dev.ration.statemachine.command.Proposal;
import dev.ration.statemachine.command.LeaseCommand.RenewLease;
import dev.ration.statemachine.command.RequestKey;
import dev.ration.statemachine.command.LeaseCommand.ReturnLease;
import dev.ration.statemachine.command.LeaseCommand.SetLimit;
import dev.ration.statemachine.command.Tick;
import dev.ration.wire.Mode;
import dev.ration.wire.Policy;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/** A deterministic mixed workload of batches from a seed (for replay and restart tests). */
public final class Workload {
  private Workload() {}

  public static List<Batch> batches(long seed, int count) {
    SplittableRandom random = new SplittableRandom(seed);
    List<Batch> out = new ArrayList<>();
    long time = 1_000;
    long sequence = 1;
    for (int i = 0; i < count; i++) {
      time += random.nextInt(-50, 400);
      List<Proposal> proposals = new ArrayList<>();
      int size = 1 + random.nextInt(6);
      for (int p = 0; p < size; p++) {
        Command command;
        int kind = random.nextInt(100);
        String resource = "r" + random.nextInt(3);
        if (i == 0 || kind < 5) {
          command = new SetLimit(new Limit("t", resource, random.nextInt(50, 200), random.nextInt(0, 40),
              Mode.HARD, 1000, 100, 0, Policy.FREE_CAPACITY, 0));
        } else if (kind < 40) {
          command = new AcquireLease("t", resource, "h" + random.nextInt(5), random.nextInt(0, 80),
              random.nextInt(0, 20));
        } else if (kind < 70) {
          command = new RenewLease(1 + random.nextInt(30), random.nextInt(1, 60),
              random.nextInt(0, 80), random.nextInt(0, 20), 0, 0, random.nextInt(0, 2));
        } else if (kind < 80) {
          command = new ReturnLease(1 + random.nextInt(30), 1, random.nextInt(0, 20));
        } else if (kind < 83) {
          command = new NewEpoch("n" + random.nextInt(3));
        } else {
          command = new Tick(random.nextInt(0, 20));
        }
        RequestKey key = command.fromClient()
            ? new RequestKey(1, 1, random.nextInt(10) == 0 ? Math.max(1, sequence - 1) : sequence++)
            : RequestKey.NONE;
        proposals.add(new Proposal(key, command));
      }
      out.add(Batch.of(time, proposals));
    }
    return out;
  }
}
