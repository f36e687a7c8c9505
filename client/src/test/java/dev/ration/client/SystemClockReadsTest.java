package dev.ration.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaAccess;
import com.tngtech.archunit.core.domain.JavaClass;
import dev.ration.client.time.MonotonicClock;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * Time-dependent code of the client takes its time from the injected {@link MonotonicClock},
 * so a test moves a manual clock instead of sleeping. A direct read of the system's clocks
 * anywhere else would quietly escape that clock; this finds every call of, and every method
 * reference to, {@code System.nanoTime} and {@code System.currentTimeMillis} in the production
 * classes, and allows exactly one: the default clock.
 */
class SystemClockReadsTest {
  private static final Set<String> SYSTEM_CLOCKS = Set.of("nanoTime", "currentTimeMillis");

  @Test
  void onlyTheDefaultClockReadsTheSystemClock() {
    Set<String> readers = new TreeSet<>();
    for (JavaClass c : PackageDependencyTest.MAIN) {
      for (JavaAccess<?> access : c.getAccessesFromSelf()) {
        if (readsSystemClock(access)) {
          readers.add(access.getOrigin().getFullName() + " -> " + access.getTarget().getName());
        }
      }
    }
    // The default clock must be seen, or the scan sees nothing (a method reference is how the
    // default reads it, so this also shows references are scanned, not only calls).
    assertTrue(readers.stream().anyMatch(r -> r.startsWith(MonotonicClock.class.getName() + ".")),
        "the default clock's read was not found; found: " + readers);
    Set<String> elsewhere = new TreeSet<>(readers);
    elsewhere.removeIf(r -> r.startsWith(MonotonicClock.class.getName() + "."));
    assertEquals(Set.of(), elsewhere,
        "read the system clock directly; take the time from the injected MonotonicClock");
  }

  private static boolean readsSystemClock(JavaAccess<?> access) {
    return access.getTargetOwner().isEquivalentTo(System.class)
        && SYSTEM_CLOCKS.contains(access.getTarget().getName());
  }
}
