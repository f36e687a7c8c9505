package dev.ration.statemachine.store;

import dev.ration.wire.quota.QuotaSpec;
import dev.ration.wire.lease.Limit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.statemachine.StateOptions;
import dev.ration.statemachine.command.LeaseCommand.AcquireLease;
import dev.ration.statemachine.command.Batch;
import dev.ration.statemachine.command.BatchCodec;
import dev.ration.statemachine.command.QuotaCommand.CancelReservation;
import dev.ration.statemachine.command.Command;
import dev.ration.statemachine.command.TtlCommand.DeleteEntry;
import dev.ration.statemachine.command.Fingerprint;
import dev.ration.statemachine.command.QuotaCommand.IngestUsage;
import dev.ration.statemachine.command.Proposal;
import dev.ration.statemachine.command.TtlCommand.PutEntry;
import dev.ration.statemachine.command.LeaseCommand.RenewLease;
import dev.ration.statemachine.command.RequestKey;
import dev.ration.statemachine.command.QuotaCommand.Reserve;
import dev.ration.statemachine.command.LeaseCommand.ReturnLease;
import dev.ration.statemachine.command.LeaseCommand.SetLimit;
import dev.ration.statemachine.command.QuotaCommand.SetQuota;
import dev.ration.statemachine.command.Tick;
import dev.ration.statemachine.quota.QuotaOptions;
import dev.ration.statemachine.result.Result;
import dev.ration.wire.Bytes;
import dev.ration.testkit.Property;
import dev.ration.testkit.Rng;
import dev.ration.wire.Mode;
import dev.ration.wire.Outcome;
import dev.ration.wire.Overage;
import dev.ration.wire.Policy;
import dev.ration.wire.QuotaKind;
import dev.ration.wire.Window;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Goal (invariant I9): no request ever receives a result that belongs to a different request.
 * Random entries of lease, TTL and quota commands from three clients, reusing request ids at
 * random with the same request (a retry) and with other ones (a bug in the caller), go through
 * the real log codec and the real state machine on RocksDB, with restarts (close and reopen)
 * and snapshot restores (a checkpoint restored into a fresh directory, then the log after it
 * replayed, as a follower installing a snapshot does) mixed in. The model is a map from
 * request key to (the request first answered, its answer, its expiry):
 * <ul>
 *   <li>a live key and the same request: exactly the first answer;</li>
 *   <li>a live key and another request: the definite refusal (INVALID_ARGUMENT naming the
 *       request id, the client and the first request's kind), and the key keeps its first
 *       answer (the refusal records nothing);</li>
 *   <li>a new or expired key: the request runs; its answer is never that refusal.</li>
 * </ul>
 * verify() runs after every entry.
 */
class IdempotencyFingerprintPropertyTest {
  /** A short retention (1 s), so keys expire and run anew during a run. */
  static final StateOptions OPTIONS = new StateOptions(1_000, 4, 10_000, 8, QuotaOptions.defaults());
  static final long[][] CLIENTS = {{0x0123456789abcdefL, 0x0123456789abcdefL}, {1, 2}, {7, 7}};

  record Kept(Command command, Result answer, long expiresAt) {}

  /** The model, and what is needed to roll it back to a checkpoint. */
  static final class Model {
    Map<RequestKey, Kept> kept = new HashMap<>();
    long[] nextSequence = {1, 1, 1};
    List<List<Long>> used = List.of(new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
    long refusals;
    long retries;

    void check(Proposal p, Result actual, long now) {
      RequestKey key = p.key();
      if (key.isNone()) {
        return;
      }
      Kept k = kept.get(key);
      if (k != null && now < k.expiresAt()) {
        if (k.command().equals(p.command())) {
          retries++;
          assertEquals(k.answer(), actual, "a retry of " + key + " gets the first answer");
        } else {
          refusals++;
          Result.Rejected no = (Result.Rejected) actual;
          assertEquals(Outcome.INVALID_ARGUMENT, no.outcome(), no.toString());
          String first = Fingerprint.operationOf(k.command().code());
          assertTrue(no.message().startsWith("request id " + key.sequence() + " of client "
              + String.format("%016x%016x", key.clientHigh(), key.clientLow())
              + " was first used for " + first), no.message());
          assertTrue(no.message().endsWith("; use a new request id"), no.message());
        }
        return;
      }
      assertFalse(actual instanceof Result.Rejected r && r.message().contains("was first used for"),
          "a new request " + key + " " + p.command() + " was refused as a reuse: " + actual);
      kept.put(key, new Kept(p.command(), actual, now + OPTIONS.idempotencyRetentionMillis()));
    }

    Model copy() {
      Model m = new Model();
      m.kept = new HashMap<>(kept);
      m.nextSequence = nextSequence.clone();
      m.used = List.of(new ArrayList<>(used.get(0)), new ArrayList<>(used.get(1)),
          new ArrayList<>(used.get(2)));
      return m;
    }
  }

  private static Command command(Rng rng) {
    int x = rng.uniform(0, 2);
    return switch (rng.uniform(0, 8)) {
      case 0 -> new AcquireLease("t", "r", "h" + x, 1 + x, 0);
      case 1 -> new RenewLease(1 + x, 1 + rng.uniform(0, 3), 1, 0, 0, 0, 0);
      case 2 -> new ReturnLease(1 + x, 1 + rng.uniform(0, 3), 0);
      case 3 -> new PutEntry("ns", "k" + x, new Bytes(("v" + rng.uniform(0, 1))
          .getBytes(StandardCharsets.UTF_8)), 60_000);
      case 4 -> new DeleteEntry("ns", "k" + x, 0);
      case 5 -> new Reserve("acme", List.of(new Reserve.Item("jobs", 1 + x)), 0, 60_000);
      case 6 -> new CancelReservation(1 + x);
      case 7 -> new IngestUsage("e" + x, 1_000, "acme", "jobs", 1 + rng.uniform(0, 1), "jobs", 0);
      default -> new Tick(rng.uniform(0, 4));
    };
  }

  /** One proposal: a fresh key, a retry of a used one, or a used one with another request. */
  private static Proposal proposal(Rng rng, Model model, long now) {
    Command command = command(rng);
    if (command instanceof Tick) {
      return new Proposal(RequestKey.NONE, command);
    }
    int c = rng.uniform(0, CLIENTS.length - 1);
    List<Long> used = model.used.get(c);
    long sequence;
    if (!used.isEmpty() && rng.uniform(0, 9) < 4) {
      sequence = used.get(rng.uniform(0, used.size() - 1));
      RequestKey key = new RequestKey(CLIENTS[c][0], CLIENTS[c][1], sequence);
      Kept k = model.kept.get(key);
      if (k != null && rng.bool()) {
        command = k.command(); // a true retry (live or expired)
      }
    } else {
      sequence = model.nextSequence[c]++;
      used.add(sequence);
    }
    return new Proposal(new RequestKey(CLIENTS[c][0], CLIENTS[c][1], sequence), command);
  }

  @Test
  void noRequestGetsAnotherRequestsAnswer() {
    long[] totals = new long[2];
    Property.check(15, rng -> run(rng, totals));
    System.out.println("reuse refused " + totals[0] + ", retries answered " + totals[1]);
    assertTrue(totals[0] > 0 && totals[1] > 0, "both kinds of reuse happened");
  }

  private static void run(Rng rng, long[] totals) throws IOException {
    Files.createDirectories(Path.of("target"));
    Path root = Files.createTempDirectory(Path.of("target"), "fingerprint-");
    Path data = root.resolve("state-0");
    int dirs = 0;
    RocksCoordinatorState state = RocksCoordinatorState.open(data, OPTIONS);
    try {
      Model model = new Model();
      long now = 1_000;
      long index = 0;
      state.apply(1, index++, Batch.of(now, List.of(
          new Proposal(RequestKey.NONE, new SetLimit(new Limit("t", "r", 1_000, 100, Mode.HARD, 60_000, 100,
              0, Policy.FREE_CAPACITY, 0))),
          new Proposal(RequestKey.NONE, new SetQuota(new QuotaSpec("acme", "jobs", QuotaKind.CONCURRENT,
              Window.NONE, 1_000_000, "jobs", 0, Overage.REJECT, 0, 0, 0, "test", 0, "setup"))))));
      // The checkpoint, the model as of it, and the entries applied since (to replay).
      Path checkpoint = null;
      Model atCheckpoint = null;
      List<Batch> since = new ArrayList<>();
      int steps = rng.uniform(20, 60);
      for (int step = 0; step < steps; step++) {
        now += rng.uniform(0, 4) * 150L;
        List<Proposal> proposals = new ArrayList<>();
        int n = rng.uniform(1, 5);
        for (int i = 0; i < n; i++) {
          proposals.add(proposal(rng, model, now));
        }
        Batch batch = BatchCodec.decode(BatchCodec.encode(Batch.of(now, proposals)));
        applyChecked(state, index++, batch, model);
        since.add(batch);
        state.verify();
        int event = rng.uniform(0, 19);
        if (event == 0) {
          state.close();
          state = RocksCoordinatorState.open(data, OPTIONS);
          state.verify();
        } else if (event == 1 || checkpoint == null && event == 2) {
          checkpoint = root.resolve("cp-" + step);
          state.checkpoint(checkpoint);
          atCheckpoint = model.copy();
          since.clear();
        } else if (event == 2) {
          // A snapshot install: the checkpoint restored into a fresh directory, then the log
          // after it replayed; answers must be the same as the first time.
          state.close();
          data = root.resolve("state-" + ++dirs);
          RocksCoordinatorState.restoreCheckpoint(checkpoint, data);
          state = RocksCoordinatorState.open(data, OPTIONS);
          state.verify();
          model = atCheckpoint.copy();
          long replayFrom = index - since.size();
          for (int i = 0; i < since.size(); i++) {
            applyChecked(state, replayFrom + i, since.get(i), model);
            state.verify();
          }
        }
      }
      totals[0] += model.refusals;
      totals[1] += model.retries;
    } finally {
      state.close();
      try (Stream<Path> files = Files.walk(root)) {
        for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
          Files.delete(p);
        }
      }
    }
  }

  private static void applyChecked(RocksCoordinatorState state, long index, Batch batch, Model model) {
    List<Result> results = state.apply(1, index, batch);
    long now = Math.max(batch.timeMillis(), 0);
    for (int i = 0; i < results.size(); i++) {
      model.check(batch.proposals().get(i), results.get(i), now);
    }
  }
}
