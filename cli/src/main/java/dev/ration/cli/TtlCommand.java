package dev.ration.cli;

import dev.ration.wire.CapacityPolicy;

import dev.ration.wire.ttl.NamespaceView;

import dev.ration.wire.Outcome;
import dev.ration.protocol.TtlRequest;
import dev.ration.protocol.TtlResponse;
import dev.ration.cli.ClusterGateway.GatewayException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * `ration ttl ...`: TTL entries by hand (docs/TTL.md). Values are given and printed as UTF-8
 * text. TTLs are milliseconds of ledger time; {@code --ttl -1} means no expiry, 0 already
 * expired. Exit codes as every admin command: 2 for a rejection (VERSION_MISMATCH,
 * ENTRY_UNKNOWN, NAMESPACE_FULL, or a `get` miss), 3 when a mutation may or may not have applied.
 */
@Command(name = "ttl", description = "Put, get, compare-and-set, refresh, delete and list TTL entries.",
    subcommands = {TtlCommand.Put.class, TtlCommand.Get.class, TtlCommand.Cas.class,
        TtlCommand.Refresh.class, TtlCommand.Update.class, TtlCommand.Delete.class,
        TtlCommand.ListEntries.class, TtlCommand.Watch.class,
        TtlCommand.NamespaceSet.class, TtlCommand.NamespaceGet.class})
final class TtlCommand {
  @Mixin HelpOption help;

  /** -n/--namespace, which every TTL command takes. */
  static final class NamespaceOption {
    @Option(names = {"-n", "--namespace"}, defaultValue = "default", description = "Namespace (default: default).")
    String namespace;
  }

  /** A TTL command that reads. */
  abstract static class TtlRead extends AdminCommand {
    @Mixin NamespaceOption ns;
  }

  /** A TTL command that writes: may choose its client id and request id. */
  abstract static class TtlMutation extends MutationCommand {
    @Mixin NamespaceOption ns;
  }

  @Command(name = "put", description = "Store a value (replaces any entry and resets its TTL).")
  static final class Put extends TtlMutation {
    @Parameters(index = "0", paramLabel = "KEY") String key;
    @Parameters(index = "1", paramLabel = "VALUE") String value;
    @Option(names = "--ttl", required = true, paramLabel = "DURATION",
        description = "TTL, e.g. 30s, 10m (-1 = no expiry; a bare number is milliseconds).")
    String ttl;

    @Override
    int run(ClusterGateway g) throws GatewayException {
      long ttlMillis = ttlMillis("--ttl", ttl, true);
      TtlResponse.WriteReply r = send(g, new TtlRequest.Put(ns.namespace, key, utf8(value), ttlMillis),
          TtlResponse.WriteReply.class);
      return printOutcome(r.outcome(), r.message(), 0, TtlViews.write(ns.namespace, key, r));
    }
  }

  @Command(name = "cas", description = "Compare-and-set: write only if the current version is --expect (0 = absent).")
  static final class Cas extends TtlMutation {
    @Parameters(index = "0", paramLabel = "KEY") String key;
    @Parameters(index = "1", paramLabel = "VALUE") String value;
    @Option(names = "--expect", required = true, paramLabel = "VERSION") long expectedVersion;
    @Option(names = "--ttl", required = true, paramLabel = "DURATION",
        description = "TTL, e.g. 30s, 10m (-1 = no expiry; a bare number is milliseconds).")
    String ttl;

    @Override
    int run(ClusterGateway g) throws GatewayException {
      long ttlMillis = ttlMillis("--ttl", ttl, true);
      TtlResponse.WriteReply r = send(g, new TtlRequest.CompareAndSet(ns.namespace, key,
          expectedVersion, utf8(value), ttlMillis), TtlResponse.WriteReply.class);
      return printOutcome(r.outcome(), r.message(), 0, TtlViews.write(ns.namespace, key, r));
    }
  }

  @Command(name = "refresh", description = "Set a live entry's expiry to now + --ttl (value and version stay).")
  static final class Refresh extends TtlMutation {
    @Parameters(index = "0", paramLabel = "KEY") String key;
    @Option(names = "--ttl", required = true, paramLabel = "DURATION",
        description = "New TTL from now, e.g. 30s, 10m (a bare number is milliseconds).")
    String ttl;
    @Option(names = "--expect", defaultValue = "0", paramLabel = "VERSION", description = "Only this version (default 0: any).")
    long expectedVersion;

    @Override
    int run(ClusterGateway g) throws GatewayException {
      long ttlMillis = ttlMillis("--ttl", ttl, false);
      TtlResponse.WriteReply r = send(g, new TtlRequest.Refresh(ns.namespace, key, ttlMillis,
          expectedVersion), TtlResponse.WriteReply.class);
      return printOutcome(r.outcome(), r.message(), 0, TtlViews.write(ns.namespace, key, r));
    }
  }

  @Command(name = "update", description = "Replace a live entry's value and keep its expiry (--expect: only that version).")
  static final class Update extends TtlMutation {
    @Parameters(index = "0", paramLabel = "KEY") String key;
    @Parameters(index = "1", paramLabel = "VALUE") String value;
    @Option(names = "--expect", defaultValue = "0", paramLabel = "VERSION", description = "Only this version (default 0: any).")
    long expectedVersion;

    @Override
    int run(ClusterGateway g) throws GatewayException {
      TtlResponse.WriteReply r = send(g, new TtlRequest.Update(ns.namespace, key, utf8(value),
          expectedVersion), TtlResponse.WriteReply.class);
      return printOutcome(r.outcome(), r.message(), 0, TtlViews.write(ns.namespace, key, r));
    }
  }

  @Command(name = "delete", description = "Delete an entry (--expect: only that version).")
  static final class Delete extends TtlMutation {
    @Parameters(index = "0", paramLabel = "KEY") String key;
    @Option(names = "--expect", defaultValue = "0", paramLabel = "VERSION") long expectedVersion;

    @Override
    int run(ClusterGateway g) throws GatewayException {
      TtlResponse.DeleteReply r = send(g, new TtlRequest.Delete(ns.namespace, key, expectedVersion),
          TtlResponse.DeleteReply.class);
      return printOutcome(r.outcome(), r.message(), 0, TtlViews.delete(ns.namespace, key, r));
    }
  }

  @Command(name = "get", description = "Read a live entry (linearizable; exit 2 if absent or expired).")
  static final class Get extends TtlRead {
    @Parameters(index = "0", paramLabel = "KEY") String key;
    @Option(names = "--stale", description = "Answer from the contacted server's state, without a linearizable read.")
    boolean stale;

    @Override
    int run(ClusterGateway g) throws GatewayException {
      TtlResponse.GetReply r = send(g, new TtlRequest.Get(ns.namespace, key, stale),
          TtlResponse.GetReply.class);
      Fields f = new Fields().put("found", r.found()).put("readAtMillis", r.readAtMillis());
      if (r.found()) {
        TtlViews.entryInto(f, r.entry());
      }
      return printFound(r.found(), f, "ENTRY_UNKNOWN: no live entry " + ns.namespace + "/" + key);
    }
  }

  @Command(name = "list", description = "List live entries whose key starts with --prefix.")
  static final class ListEntries extends TtlRead {
    @Option(names = "--prefix", defaultValue = "") String prefix;
    @Option(names = "--limit", defaultValue = "100", description = "At most this many (1..1000, default 100).")
    int limit;
    @Option(names = "--stale") boolean stale;

    @Override
    int run(ClusterGateway g) throws GatewayException {
      TtlResponse.ListReply r = send(g, new TtlRequest.List(ns.namespace, prefix, limit, stale),
          TtlResponse.ListReply.class);
      return printList("entries", r.entries().stream().map(TtlViews::entry).toList(), TtlViews.ENTRY_COLUMNS,
          java.util.OptionalLong.of(r.readAtMillis()));
    }
  }

  @Command(name = "watch", description = "Print a namespace's changes (puts, refreshes, deletes, expiries, evictions) as they are committed.")
  static final class Watch extends TtlRead {
    @Option(names = "--from-index", defaultValue = "-1", paramLabel = "INDEX",
        description = "Start after this log index (-1, the default: from now).")
    long fromIndex;
    @Option(names = "--count", defaultValue = "0", paramLabel = "N",
        description = "Stop after N changes and the rest of the last one's log entry (0, the default: no limit).")
    long count;
    @Option(names = "--for", paramLabel = "DURATION",
        description = "Stop after this long, e.g. 30s (default: until interrupted).")
    String forText;

    /** How long one poll waits at the node: well inside the command's --timeout. */
    static final long POLL_WAIT_MILLIS = 1000;

    @Override
    int run(ClusterGateway g) throws GatewayException {
      if (fromIndex < -1) {
        throw new picocli.CommandLine.ParameterException(spec.commandLine(),
            "--from-index: " + fromIndex + " < -1 (-1: from now)");
      }
      if (count < 0) {
        throw new picocli.CommandLine.ParameterException(spec.commandLine(), "--count: " + count + " < 0");
      }
      long stopAt = forText == null ? Long.MAX_VALUE
          : System.nanoTime() + durationMillis("--for", forText) * 1_000_000L;
      RationCli root = (RationCli) spec.root().userObject();
      java.io.PrintWriter out = spec.commandLine().getOut();
      java.io.PrintWriter err = spec.commandLine().getErr();
      long position = fromIndex;
      long printed = 0;
      boolean json = admin.output == AdminOptions.Format.json;
      while ((count == 0 || printed < count) && System.nanoTime() < stopAt) {
        long leftMillis = Math.max(0, (stopAt - System.nanoTime()) / 1_000_000L);
        long wait = position < 0 ? 0 : Math.min(POLL_WAIT_MILLIS, Math.max(1, leftMillis));
        TtlResponse.WatchReply r = send(g, new TtlRequest.Watch(ns.namespace, position, wait,
            List.of(), false), TtlResponse.WatchReply.class);
        LedgerClock clock = new LedgerClock(r.readAtMillis(), root.wallClock().instant());
        if (r.compacted()) {
          String why = "changes after index " + position + " are no longer held (a node restarted,"
              + " installed a snapshot, or this watch fell behind): some were missed; continuing"
              + " from index " + r.throughIndex();
          if (json) {
            out.println(new Fields().put("compacted", true).put("throughIndex", r.throughIndex())
                .put("message", why).toJson());
          } else {
            err.println("warning: " + why);
          }
        }
        long lastIndex = Long.MIN_VALUE;
        for (TtlResponse.ChangeInfo c : r.changes()) {
          // A log entry's changes are printed together, so --from-index resumes exactly.
          if (c.index() <= position
              || (count != 0 && printed >= count && c.index() != lastIndex)) {
            continue;
          }
          lastIndex = c.index();
          Fields f = TtlViews.change(ns.namespace, c);
          out.println(json ? Instants.add(f, java.util.Optional.of(clock)).toJson()
              : TtlViews.changeLine(c, clock));
          printed++;
        }
        out.flush();
        err.flush();
        // "compacted" may name an index below the position (one this cluster never reached).
        position = r.compacted() ? r.throughIndex() : Math.max(position, r.throughIndex());
      }
      return Exit.OK;
    }
  }

  @Command(name = "namespace-set", description = "Set a namespace's capacity and policy when full.")
  static final class NamespaceSet extends TtlMutation {
    @Option(names = "--max-entries", required = true) long maxEntries;
    @Option(names = "--max-bytes", required = true) long maxBytes;
    @Option(names = "--policy", defaultValue = "reject", description = "reject (default) or evict-soonest-expiring.")
    String policy;

    @Override
    int run(ClusterGateway g) throws GatewayException {
      CapacityPolicy code = switch (policy) {
        case "reject" -> CapacityPolicy.REJECT;
        case "evict-soonest-expiring" -> CapacityPolicy.EVICT_SOONEST_EXPIRING;
        default -> throw new picocli.CommandLine.ParameterException(spec.commandLine(),
            "--policy: " + policy + " is not reject or evict-soonest-expiring");
      };
      TtlResponse.NamespaceReply r = send(g, new TtlRequest.SetNamespace(ns.namespace, maxEntries,
          maxBytes, code), TtlResponse.NamespaceReply.class);
      Fields f = r.namespace() == null ? new Fields() : TtlViews.namespace(r.namespace());
      return printOutcome(r.outcome(), r.message(), 0, f.put("outcome", r.outcome().name()));
    }
  }

  @Command(name = "namespace-get", description = "Show namespaces: capacity, usage and evictions (--all for every one).")
  static final class NamespaceGet extends TtlRead {
    @Option(names = "--all") boolean all;
    @Option(names = "--stale") boolean stale;

    @Override
    int run(ClusterGateway g) throws GatewayException {
      TtlResponse.NamespaceList r = send(g, new TtlRequest.GetNamespaces(all ? "" : ns.namespace, stale),
          TtlResponse.NamespaceList.class);
      return printList("namespaces", r.namespaces(), TtlViews::namespace, TtlViews.NAMESPACE_COLUMNS);
    }
  }

  static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** Fields of TTL replies (JSON names are a stable interface, docs/CLI.md). */
  static final class TtlViews {
    private TtlViews() {}

    static final List<String> ENTRY_COLUMNS = List.of("namespace", "key", "value", "version", "expiresAt");
    static final List<String> NAMESPACE_COLUMNS = List.of("namespace", "maxEntries", "maxBytes",
        "policy", "entries", "bytes", "evictedExpired", "evictedCapacity");

    static Fields write(String namespace, String key, TtlResponse.WriteReply r) {
      return new Fields().put("outcome", r.outcome().name()).put("namespace", namespace)
          .put("key", key).put("version", r.outcome() == Outcome.SUCCESS ? r.version() : 0)
          .put("expiresAtMillis", r.expiresAtMillis()).put("currentVersion", r.currentVersion());
    }

    static Fields delete(String namespace, String key, TtlResponse.DeleteReply r) {
      return new Fields().put("outcome", r.outcome().name()).put("namespace", namespace)
          .put("key", key).put("version", r.version()).put("existed", r.existed())
          .put("currentVersion", r.currentVersion());
    }

    static Fields entry(TtlResponse.EntryInfo e) {
      return entryInto(new Fields(), e);
    }

    static Fields entryInto(Fields f, TtlResponse.EntryInfo e) {
      return f.put("namespace", e.namespace()).put("key", e.key())
          .put("value", new String(e.value(), StandardCharsets.UTF_8)).put("version", e.version())
          .put("expiresAtMillis", e.expiresAtMillis());
    }

    static Fields change(String namespace, TtlResponse.ChangeInfo c) {
      return new Fields().put("index", c.index()).put("kind", c.kind().name())
          .put("namespace", namespace).put("key", c.key()).put("version", c.version())
          .put("expiresAtMillis", c.expiresAtMillis())
          .put("value", new String(c.value(), StandardCharsets.UTF_8));
    }

    /** One change as one line: index, kind, key, version, expiry, and the value of a write. */
    static String changeLine(TtlResponse.ChangeInfo c, LedgerClock clock) {
      StringBuilder b = new StringBuilder().append(c.index()).append(' ').append(c.kind().name())
          .append(' ').append(c.key()).append(" version ").append(c.version());
      if (!c.kind().removes()) {
        b.append(" expires ").append(clock.iso(c.expiresAtMillis())).append(" value ")
            .append(new String(c.value(), StandardCharsets.UTF_8));
      }
      return b.toString();
    }

    static Fields namespace(NamespaceView n) {
      return new Fields().put("namespace", n.name()).put("maxEntries", n.maxEntries())
          .put("maxBytes", n.maxBytes())
          .put("policy", n.policy().name())
          .put("entries", n.entries()).put("bytes", n.bytes())
          .put("evictedExpired", n.evictedExpired()).put("evictedCapacity", n.evictedCapacity());
    }
  }
}
