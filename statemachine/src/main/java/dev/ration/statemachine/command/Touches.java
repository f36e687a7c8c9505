package dev.ration.statemachine.command;

import dev.ration.wire.security.Tenants;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * What one command acts on, as the command itself declares it ({@link Command#touches()}, which
 * every command kind must implement: a kind without a declaration does not compile).
 * Authorization reads it, and so will routing to a Raft group: one declaration, no per-kind list
 * elsewhere that a new command could be missing from.
 *
 * <p>Three parts, any of which may be empty:
 * <ul>
 *   <li>{@code tenants}: tenants the command names directly (a limit's tenant, the first segment
 *       of a scope path or a TTL namespace);
 *   <li>{@code ids}: objects it names only by id (a lease, a reservation), which the ledger
 *       applying the command's family resolves to a tenant on its current state;
 *   <li>{@code noTenant}: state that belongs to no tenant (epochs, tokens and grants, a usage
 *       consumer's cursor over every tenant's events).
 * </ul>
 * A command limited to some tenants is applied only when every tenant it names is one of them,
 * every id it names resolves to a live object of one of them, and it touches no cluster state.
 * An id that resolves to nothing is refused exactly as an id of another tenant is: the caller
 * learns nothing about ids it may not use, and nothing it cannot name is changed.
 */
public record Touches(SortedSet<String> tenants, List<Long> ids, boolean noTenant) {

  public Touches {
    tenants = Collections.unmodifiableSortedSet(new TreeSet<>(tenants));
    ids = List.copyOf(ids);
  }

  /** Touches only what {@code tenant} owns. */
  public static Touches tenant(String tenant) {
    return new Touches(new TreeSet<>(List.of(tenant == null ? "" : tenant)), List.of(), false);
  }

  /** Touches only what the tenant of scope path or namespace {@code path} owns. */
  public static Touches pathOf(String path) {
    return tenant(Tenants.ofPath(path == null ? "" : path));
  }

  /** Touches the objects named by {@code ids} (the applying ledger's own id space). */
  public static Touches ids(List<Long> ids) {
    return new Touches(new TreeSet<>(), ids, false);
  }

  /** Touches the object named by {@code id}. */
  public static Touches id(long id) {
    return ids(List.of(id));
  }

  /** Touches state that belongs to no tenant: refused to every identity limited to tenants. */
  public static Touches cluster() {
    return new Touches(new TreeSet<>(), List.of(), true);
  }

  /** Both this and {@code other}. */
  public Touches and(Touches other) {
    TreeSet<String> t = new TreeSet<>(tenants);
    t.addAll(other.tenants);
    List<Long> i = new ArrayList<>(ids);
    i.addAll(other.ids);
    return new Touches(t, i, noTenant || other.noTenant);
  }
}
