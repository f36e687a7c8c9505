package dev.ration.statemachine.quota;

import dev.ration.statemachine.query.LevelUsage;

import dev.ration.wire.quota.QuotaSpec;

import static dev.ration.statemachine.quota.Arguments.amount;
import static dev.ration.statemachine.quota.Arguments.firstProblem;
import static dev.ration.statemachine.quota.Arguments.invalid;
import static dev.ration.statemachine.quota.Arguments.text;

import dev.ration.statemachine.command.QuotaCommand.SetQuota;
import dev.ration.statemachine.query.QuotaAnswer;
import dev.ration.statemachine.result.QuotaResult;
import dev.ration.wire.Outcome;
import dev.ration.wire.Overage;
import dev.ration.wire.QuotaKind;
import dev.ration.wire.Window;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongSupplier;

/**
 * The catalog: one versioned entry (a {@link QuotaSpec}) per (scope path, resource), every
 * version kept in its history, and beside each entry the usage counted against it at that
 * level ({@link LevelUsage}). A change is validated, checked against the version the caller
 * expected, stored as a new version and audited.
 *
 * <p>Thread: the single applying thread.
 *
 * <p>Invariants: the catalog record is the newest history version, and versions come from the
 * replica's global counter, so a newer version is always a larger number (Q7); an entry's kind
 * never changes, because the usage already counted means something different per kind.
 */
final class QuotaCatalog {
  private final QuotaOptions options;
  private final Arguments.NameBound names;
  private final QuotaRecords records;
  private final QuotaCounters counters;
  private final AuditTrail audit;
  private final LongSupplier mintVersion;

  QuotaCatalog(QuotaOptions options, Arguments.NameBound names, QuotaRecords records, QuotaCounters counters,
      AuditTrail audit, LongSupplier mintVersion) {
    this.names = names;
    this.options = options;
    this.records = records;
    this.counters = counters;
    this.audit = audit;
    this.mintVersion = mintVersion;
  }

  QuotaResult set(SetQuota command, long now) {
    QuotaSpec c = command.spec();
    Optional<String> bad = firstProblem(
        Scope.problem(c.scope()),
        names.check("resource", c.resource()),
        names.check("unit", c.unit()),
        text("actor", c.actor()),
        text("reason", c.reason()),
        amount("limit", c.limit(), 0),
        c.softLimit() < 0 || c.softLimit() > c.limit()
            ? Optional.of("softLimit " + c.softLimit() + " outside [0, limit " + c.limit() + "]")
            : Optional.empty(),
        c.version() < 0
            ? Optional.of("expectedVersion " + c.version() + " < 0") : Optional.empty(),
        windowProblem(c.kind(), c.window()),
        c.overage() == Overage.REJECT && c.overageMax() != 0
            ? Optional.of("overageMax " + c.overageMax() + " with overage policy REJECT; must be 0")
            : Optional.empty(),
        c.overage() == Overage.REJECT ? Optional.empty() : amount("overageMax", c.overageMax(), 1),
        c.overage() == Overage.OVERDRAFT && !c.kind().windowed()
            ? Optional.of("overage policy OVERDRAFT is for RATE and CUMULATIVE quotas (budgets "
                + "overdraw them); " + c.kind() + " takes REJECT or ALLOW")
            : Optional.empty(),
        c.kind() != QuotaKind.CUMULATIVE && c.periodStartMillis() != 0
            ? Optional.of("periodStartMillis " + c.periodStartMillis() + " is only for cumulative")
            : c.periodStartMillis() < 0
                ? Optional.of("periodStartMillis " + c.periodStartMillis() + " < 0")
                : Optional.empty());
    if (bad.isPresent()) {
      return invalid(bad.get());
    }
    Optional<QuotaSpec> existing = spec(c.scope(), c.resource());
    long current = existing.map(QuotaSpec::version).orElse(0L);
    if (c.version() != 0 && c.version() != current) {
      return new QuotaResult.QuotaRejected(Outcome.STALE_CONFIG,
          "quota " + c.scope() + " " + c.resource() + " is at version " + current
              + ", request expected " + c.version(),
          c.scope(), c.resource(), 0, current);
    }
    if (existing.isPresent() && existing.get().kind() != c.kind()) {
      return invalid("quota " + c.scope() + " " + c.resource() + " is " + existing.get().kind()
          + "; the kind of an entry never changes (requested " + c.kind() + ")");
    }
    counters.catalogVersion(mintVersion.getAsLong());
    QuotaSpec spec = c.stored(counters.catalogVersion(), now);
    byte[] value = QuotaFormat.stored(out -> QuotaFormat.writeSpec(out, spec));
    records.put(QuotaRecords.Q, QuotaKeys.catalog(c.scope(), c.resource()), value);
    records.put(QuotaRecords.Q, QuotaKeys.history(c.scope(), c.resource(), spec.version()), value);
    String detail = existing.map(old -> "limit " + old.limit() + " -> " + spec.limit()
            + ", soft " + old.softLimit() + " -> " + spec.softLimit()
            + ", overage " + old.overage() + "/" + old.overageMax() + " -> " + spec.overage()
            + "/" + spec.overageMax() + ", version " + old.version() + " -> " + spec.version())
        .orElse("created " + spec.kind() + " " + spec.window() + " limit " + spec.limit() + " "
            + spec.unit() + ", version " + spec.version());
    audit.append(now, c.actor(), "quota.set", c.scope(), c.resource(), spec.version(), c.reason(),
        detail);
    return new QuotaResult.QuotaSet(spec);
  }

  private static Optional<String> windowProblem(QuotaKind kind, Window window) {
    boolean ok = switch (kind) {
      case RATE -> window.code() >= Window.SECOND.code() && window.code() <= Window.DAY.code();
      case CUMULATIVE -> window.code() >= Window.HOUR.code() && window.code() <= Window.MONTH.code();
      case CONCURRENT, ALLOCATION -> window == Window.NONE;
    };
    return ok ? Optional.empty() : Optional.of("window " + window + " does not fit kind " + kind
        + " (rate: SECOND..DAY, cumulative: HOUR..MONTH, concurrent/allocation: NONE)");
  }

  /** The entry for exactly (scope, resource), if there is one. */
  Optional<QuotaSpec> spec(String scope, String resource) {
    return records.get(QuotaRecords.Q, QuotaKeys.catalog(scope, resource))
        .map(v -> QuotaFormat.read(v, "catalog " + scope + " " + resource, QuotaFormat::readSpec));
  }

  /** The usage stored for (scope, resource), as last written (not rolled to now). */
  LevelUsage usage(String scope, String resource) {
    return records.get(QuotaRecords.Q, QuotaKeys.level(scope, resource))
        .map(v -> QuotaFormat.read(v, "usage " + scope + " " + resource, QuotaFormat::readUsage))
        .orElse(LevelUsage.empty(scope, resource));
  }

  void putUsage(LevelUsage u) {
    records.put(QuotaRecords.Q, QuotaKeys.level(u.scope(), u.resource()),
        QuotaFormat.stored(out -> QuotaFormat.writeUsage(out, u)));
  }

  QuotaAnswer.QuotaFound find(String scope, String resource, long readNowMillis) {
    return new QuotaAnswer.QuotaFound(spec(scope, resource)
        .map(s -> new QuotaAnswer.QuotaRow(s, usage(s.scope(), s.resource()).rolled(s, readNowMillis))));
  }

  /** Entries at or under {@code scopePrefix}, at most {@link QuotaLedger#LIST_MAX}, sorted. */
  QuotaAnswer.QuotaList list(String scopePrefix, long readNowMillis) {
    List<QuotaAnswer.QuotaRow> rows = new ArrayList<>();
    for (Map.Entry<byte[], byte[]> e :
        records.scanTag(QuotaKeys.CATALOG, options.maxScanRecords())) {
      QuotaSpec s = QuotaFormat.read(e.getValue(), "catalog", QuotaFormat::readSpec);
      if (Scope.under(s.scope(), scopePrefix) && rows.size() < QuotaLedger.LIST_MAX) {
        rows.add(new QuotaAnswer.QuotaRow(s, usage(s.scope(), s.resource()).rolled(s, readNowMillis)));
      }
    }
    rows.sort(Comparator.comparing((QuotaAnswer.QuotaRow r) -> r.spec().scope())
        .thenComparing(r -> r.spec().resource()));
    return new QuotaAnswer.QuotaList(rows);
  }

  QuotaAnswer.History history(String scope, String resource) {
    List<QuotaSpec> versions = new ArrayList<>();
    for (Map.Entry<byte[], byte[]> e :
        records.scanPrefix(QuotaKeys.historyOf(scope, resource), QuotaLedger.LIST_MAX)) {
      versions.add(QuotaFormat.read(e.getValue(), "history", QuotaFormat::readSpec));
    }
    return new QuotaAnswer.History(versions);
  }
}
