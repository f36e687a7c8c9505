package dev.ration.statemachine.ttl;

import dev.ration.statemachine.command.Command;
import dev.ration.statemachine.lease.ExpiryKey;
import dev.ration.statemachine.query.Query;
import dev.ration.statemachine.query.QueryResult;
import dev.ration.statemachine.replica.ApplyContext;
import dev.ration.statemachine.replica.Ledger;
import dev.ration.statemachine.result.Result;
import java.util.Optional;
import java.util.function.Consumer;

/** TTL entries (placeholder while the seam lands). */
public final class TtlLedger implements Ledger {
  /** Column family: the entries, key (namespace, key). */
  public static final String ENTRIES = "ttl_entries";
  /** Column family: per-namespace expiry order, key (namespace id, expiresAt, version). */
  public static final String ORDER = "ttl_order";
  /** Column family: namespaces with their capacity and counters. */
  public static final String NAMESPACES = "ttl_namespaces";
  private final ApplyContext context;

  public TtlLedger(ApplyContext context) {
    this.context = context;
  }

  @Override
  public String name() {
    return "ttl";
  }

  @Override
  public boolean owns(Command command) {
    return false;
  }

  @Override
  public Result apply(Command command) {
    throw new IllegalStateException("not a ttl command " + command);
  }

  @Override
  public boolean ownsExpiryKind(int kind) {
    return false;
  }

  @Override
  public boolean expire(ExpiryKey due) {
    throw new IllegalStateException("not a ttl expiry record " + due);
  }

  @Override
  public Optional<QueryResult> query(Query query, long readNowMillis) {
    return Optional.empty();
  }

  @Override
  public void verify() {}

  @Override
  public void verifyStoredExpiries(Consumer<Consumer<ExpiryKey>> walk) {}
}
