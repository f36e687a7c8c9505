package dev.ration.statemachine.quota;

import dev.ration.statemachine.result.QuotaResult;
import dev.ration.wire.Outcome;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * The bounds every quota command's arguments are checked against before anything is read or
 * written, and the INVALID_ARGUMENT refusal that names the first one broken. A command's
 * checks run in a fixed order so that every replica, and every retry, reports the same problem.
 *
 * <p>Thread: none of its own; stateless, called on the single applying thread and by queries.
 *
 * <p>Invariants: names are 1..{@link NameBound#maxBytes()} UTF-8 bytes, free text at most
 * {@link QuotaLedger#MAX_TEXT_BYTES}, amounts within [min, {@link QuotaLedger#MAX_AMOUNT}].
 */
final class Arguments {
  private Arguments() {}

  static QuotaResult invalid(String message) {
    return new QuotaResult.QuotaRejected(Outcome.INVALID_ARGUMENT, message, "", "", 0, 0);
  }

  /** The first present problem, in argument order. */
  @SafeVarargs
  static Optional<String> firstProblem(Optional<String>... problems) {
    for (Optional<String> p : problems) {
      if (p.isPresent()) {
        return p;
      }
    }
    return Optional.empty();
  }

  /**
   * The replicated name bound ({@code StateOptions.maxNameBytes}): resource, unit, event id and
   * consumer names are 1..maxBytes UTF-8 bytes, the same bound as every other name.
   */
  record NameBound(int maxBytes) {
    Optional<String> check(String field, String value) {
      int bytes = value.getBytes(StandardCharsets.UTF_8).length;
      if (bytes == 0 || bytes > maxBytes) {
        return Optional.of(field + " '" + value + "' has " + bytes + " UTF-8 bytes, must be 1.."
            + maxBytes);
      }
      return Optional.empty();
    }
  }

  static Optional<String> text(String field, String value) {
    int bytes = value.getBytes(StandardCharsets.UTF_8).length;
    return bytes > QuotaLedger.MAX_TEXT_BYTES
        ? Optional.of(field + " has " + bytes + " UTF-8 bytes, at most " + QuotaLedger.MAX_TEXT_BYTES)
        : Optional.empty();
  }

  static Optional<String> amount(String field, long value, long min) {
    return value < min || value > QuotaLedger.MAX_AMOUNT
        ? Optional.of(field + " " + value + " outside [" + min + ", " + QuotaLedger.MAX_AMOUNT + "]")
        : Optional.empty();
  }
}
