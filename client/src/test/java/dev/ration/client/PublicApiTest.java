package dev.ration.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.domain.JavaMember;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The client's public API is typed and separate from the wire. A service compiles against the
 * public types of the API packages (every package of the client except the transport and any
 * {@code internal} package); if one of their public or protected members (method, constructor
 * or field: parameters, return type, generic arguments, declared exceptions) mentions a type of
 * a non-API package or of the {@code protocol} module (frames, messages, codecs, PEM files), a
 * protocol change breaks that service; if
 * one mentions a Netty type, so does an upgrade of the client's Netty. The same holds for the
 * {@code wire} module's records (its lease, limit, catalog and namespace views carry raw
 * ledger-time milliseconds and change with the encoding): only its code enums, shared with
 * the server, may appear; the client has its own views ({@code LeaseInfo}, {@code LimitInfo},
 * {@code QuotaEntry}, {@code NamespaceInfo}). And
 * codes are enums, never numbers: no API member whose name says "code" or "kind" (hashCode aside) takes or
 * returns an integer. Time is {@link java.time.Duration}, {@link java.time.Instant} or
 * {@code LedgerTime}, never a raw count: no API member named {@code ...Nanos} or
 * {@code ...Millis} takes or returns an integer (the time value types of
 * {@code dev.ration.client.time} are where such counts convert, as in {@code java.time}). And
 * no API type extends or implements a non-API type, so an internal view (the transport's
 * {@code CallFailure}) cannot reach a service through a supertype either.
 */
class PublicApiTest {
  static final JavaClasses MAIN = new ClassFileImporter()
      .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
      .importPackages("dev.ration.client");

  /**
   * Packages whose public types are not API: the protocol module's frames and messages, the
   * transport, internals.
   */
  static final Pattern NOT_API = Pattern.compile(
      "dev\\.ration\\.protocol(\\..*)?|dev\\.ration\\.client\\.transport(\\..*)?|.*\\.internal(\\..*)?");

  static final Pattern CODE_NAME = Pattern.compile("(?i).*(code|kind).*");
  static final Set<String> INTEGERS = Set.of("int", "long", "short", "byte");
  static final Pattern RAW_TIME_NAME = Pattern.compile(".*(Nanos|Millis|Micros)$");
  /** The root package of the wire module, shared with the server. */
  static final String WIRE = "dev.ration.wire";
  /** The time value types themselves: their factories and accessors are the conversions. */
  static final String TIME_PACKAGE = "dev.ration.client.time";

  @Test
  void noApiSignatureMentionsANonApiType() {
    assertEquals(List.of(), leaks(apiMembers()));
  }

  /**
   * The wire rule bites: a class shaped like the old API, whose members return the wire's lease
   * view, take a list of namespace views, carry a catalog spec as a record component or name a
   * frame record, is reported member by member; its members that use the shared code enums
   * ({@code Outcome}) and the client's own views are not.
   */
  @Test
  void theWireRuleBites() {
    JavaClasses sample = new ClassFileImporter().importClasses(WireLeakSample.class, SpecHolder.class);
    List<JavaMember> members = new ArrayList<>(sample.get(WireLeakSample.class).getMembers());
    members.addAll(sample.get(SpecHolder.class).getMembers());
    members.removeIf(m -> !m.getModifiers().contains(JavaModifier.PUBLIC));
    List<String> found = leaks(members);
    assertTrue(found.stream().anyMatch(v -> v.contains("lease()") && v.endsWith("LeaseView")), found.toString());
    assertTrue(found.stream().anyMatch(v -> v.contains("setNamespaces(") && v.endsWith("NamespaceView")), found.toString());
    assertTrue(found.stream().anyMatch(v -> v.contains("spec()") && v.endsWith("QuotaSpec")), found.toString());
    assertTrue(found.stream().anyMatch(v -> v.contains("frame(") && v.endsWith("Request")), found.toString());
    assertTrue(found.stream().noneMatch(v -> v.contains("outcome()") || v.contains("leaseInfo()")), found.toString());
    // lease(), setNamespaces(...), frame(...), and the record's spec() and constructor.
    assertEquals(5, found.size(), found.toString());
  }

  /** Shaped like an API class of before, for {@link #theWireRuleBites}. */
  public static final class WireLeakSample {
    public dev.ration.wire.lease.LeaseView lease() {
      return null;
    }

    public void setNamespaces(List<dev.ration.wire.ttl.NamespaceView> namespaces) {
    }

    public void frame(dev.ration.protocol.Request request) {
    }

    public dev.ration.wire.Outcome outcome() {
      return dev.ration.wire.Outcome.SUCCESS;
    }

    public java.util.Optional<dev.ration.client.limiter.LeaseInfo> leaseInfo() {
      return java.util.Optional.empty();
    }
  }

  /** A record exposing a wire record as a component, for {@link #theWireRuleBites}. */
  public record SpecHolder(dev.ration.wire.quota.QuotaSpec spec) {}

  /**
   * The members of {@code members} that mention a type a service must not see: one of a
   * non-API package of the client, of the {@code protocol} module, of Netty, or of the
   * {@code wire} module other than its shared code enums.
   */
  private static List<String> leaks(List<JavaMember> members) {
    List<String> violations = new ArrayList<>();
    for (JavaMember m : members) {
      for (JavaClass t : involvedTypes(m)) {
        String p = t.getPackageName();
        if (NOT_API.matcher(p).matches() || p.startsWith("io.netty") || wireNonEnum(t)) {
          violations.add(m.getFullName() + " mentions " + t.getName());
        }
      }
    }
    return violations;
  }

  /**
   * Whether {@code t} is a type of the {@code wire} module other than an enum of its root
   * package. Those enums ({@code Outcome}, {@code ErrorCode}, {@code Mode}, {@code Policy}...)
   * are where codes are defined, shared with the server; everything else of the module (the
   * views {@code LeaseView}, {@code LimitStatus}, {@code QuotaSpec}, {@code NamespaceView}, the
   * shapes, the byte codecs) is an encoding, with raw ledger-time milliseconds.
   */
  static boolean wireNonEnum(JavaClass t) {
    String p = t.getPackageName();
    if (!p.equals(WIRE) && !p.startsWith(WIRE + ".")) {
      return false;
    }
    return !(p.equals(WIRE) && t.reflect().isEnum());
  }

  @Test
  void noApiMemberTakesOrReturnsAnIntegerCode() {
    List<String> violations = new ArrayList<>();
    for (JavaMember m : apiMembers()) {
      if (!CODE_NAME.matcher(m.getName()).matches() || m.getName().equals("hashCode")) {
        continue;
      }
      for (JavaClass t : involvedTypes(m)) {
        if (INTEGERS.contains(t.getName())) {
          violations.add(m.getFullName() + " uses " + t.getName());
        }
      }
    }
    assertEquals(List.of(), violations);
  }

  @Test
  void noApiMemberTakesOrReturnsARawTimeCount() {
    assertEquals(List.of(), rawTimeViolations(apiMembers()));
  }

  @Test
  void noApiTypeExtendsOrImplementsANonApiType() {
    List<String> violations = new ArrayList<>();
    for (JavaClass c : MAIN) {
      if (NOT_API.matcher(c.getPackageName()).matches() || !visible(c)) {
        continue;
      }
      List<JavaClass> supertypes = new ArrayList<>(c.getRawInterfaces());
      c.getRawSuperclass().ifPresent(supertypes::add);
      for (JavaClass t : supertypes) {
        if (NOT_API.matcher(t.getPackageName()).matches()) {
          violations.add(c.getName() + " extends or implements " + t.getName());
        }
      }
    }
    assertEquals(List.of(), violations);
  }

  /**
   * The raw-time rule bites: members of a class shaped like the old API ({@code long
   * retryAfterMillis()}, {@code schedule(Runnable, long delayNanos)} named {@code ...Nanos}) are
   * reported, and their Duration-typed replacements are not.
   */
  @Test
  void theRawTimeRuleBites() {
    JavaClasses sample = new ClassFileImporter().importClasses(RawTimeSample.class);
    List<JavaMember> members = new ArrayList<>(sample.get(RawTimeSample.class).getMembers());
    List<String> found = rawTimeViolations(members);
    assertTrue(found.stream().anyMatch(v -> v.contains("retryAfterMillis()")), found.toString());
    assertTrue(found.stream().anyMatch(v -> v.contains("delayNanos(")), found.toString());
    assertTrue(found.stream().noneMatch(v -> v.contains("retryAfter()")), found.toString());
    assertEquals(2, found.size(), found.toString());
  }

  /** Shaped like an API class, for {@link #theRawTimeRuleBites}. */
  static final class RawTimeSample {
    public long retryAfterMillis() {
      return 0;
    }

    public void delayNanos(Runnable task, long delay) {
    }

    public java.time.Duration retryAfter() {
      return java.time.Duration.ZERO;
    }
  }

  private static List<String> rawTimeViolations(List<JavaMember> members) {
    List<String> violations = new ArrayList<>();
    for (JavaMember m : members) {
      if (!RAW_TIME_NAME.matcher(m.getName()).matches()
          || m.getOwner().getPackageName().equals(TIME_PACKAGE)) {
        continue;
      }
      for (JavaClass t : involvedTypes(m)) {
        if (INTEGERS.contains(t.getName())) {
          violations.add(m.getFullName() + " uses " + t.getName());
        }
      }
    }
    return violations;
  }

  /** The rule sees the API it guards: the typed client methods are among the members checked. */
  @Test
  void theRulesSeeTheApi() {
    List<String> names = apiMembers().stream().map(JavaMember::getFullName).toList();
    assertTrue(names.size() > 200, "only " + names.size() + " API members");
    assertTrue(names.stream().anyMatch(n -> n.startsWith("dev.ration.client.RationClient.renewLease(")), "renewLease checked");
    assertTrue(names.stream().anyMatch(n -> n.startsWith("dev.ration.client.quota.QuotaClient.setQuota(")), "setQuota checked");
    assertTrue(names.stream().anyMatch(n -> n.startsWith("dev.ration.client.ttl.TtlEntries.put(")), "put checked");
    assertTrue(names.stream().anyMatch(n -> n.startsWith("dev.ration.client.RationException.retryAfter(")), "retryAfter checked");
    assertTrue(names.stream().anyMatch(n -> n.startsWith("dev.ration.client.limiter.ManualScheduler.advance(")), "advance checked");
    assertTrue(NOT_API.matcher("dev.ration.protocol").matches());
    assertTrue(NOT_API.matcher("dev.ration.protocol.tls").matches());
    assertTrue(NOT_API.matcher("dev.ration.client.limiter.internal").matches());
    assertTrue(!NOT_API.matcher("dev.ration.client.limiter").matches());
    assertTrue(names.stream().anyMatch(n -> n.startsWith("dev.ration.client.RationClient.listLeases(")), "listLeases checked");
    assertTrue(names.stream().anyMatch(n -> n.startsWith("dev.ration.client.quota.QuotaStatus.spec(")), "spec checked");
    assertTrue(names.stream().anyMatch(n -> n.startsWith("dev.ration.client.ttl.TtlEntries.namespaces(")), "namespaces checked");
  }

  private static List<JavaMember> apiMembers() {
    List<JavaMember> out = new ArrayList<>();
    for (JavaClass c : MAIN) {
      if (NOT_API.matcher(c.getPackageName()).matches() || !visible(c)) {
        continue;
      }
      for (JavaMember m : c.getMembers()) {
        Set<JavaModifier> mods = m.getModifiers();
        boolean exposed = mods.contains(JavaModifier.PUBLIC)
            || (mods.contains(JavaModifier.PROTECTED) && !c.getModifiers().contains(JavaModifier.FINAL));
        if (exposed && !mods.contains(JavaModifier.SYNTHETIC) && !mods.contains(JavaModifier.BRIDGE)) {
          out.add(m);
        }
      }
    }
    return out;
  }

  private static Set<JavaClass> involvedTypes(JavaMember m) {
    if (m instanceof JavaCodeUnit u) {
      Set<JavaClass> types = new java.util.HashSet<>(u.getAllInvolvedRawTypes());
      u.getExceptionTypes().forEach(types::add);
      return types;
    }
    return ((JavaField) m).getAllInvolvedRawTypes();
  }

  /** A type a service can name: public, and so is every type enclosing it. */
  private static boolean visible(JavaClass c) {
    for (JavaClass k = c; k != null; k = k.getEnclosingClass().orElse(null)) {
      if (!k.getModifiers().contains(JavaModifier.PUBLIC)) {
        return false;
      }
    }
    return true;
  }
}
