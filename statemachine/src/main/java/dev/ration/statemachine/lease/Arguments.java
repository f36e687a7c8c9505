package dev.ration.statemachine.lease;

import dev.ration.statemachine.StateOptions;
import dev.ration.statemachine.result.Result;
import dev.ration.wire.ByteWriter;
import dev.ration.wire.Outcome;
import java.util.Optional;

/**
 * The argument checks every lease command makes before it looks at the state: names within the
 * configured byte length, amounts not negative. A command with a bad argument is refused with
 * INVALID_ARGUMENT naming the first problem, in the order the command lists them, and changes
 * nothing.
 *
 * <p>Thread: the single applying thread (stateless apart from the options).
 */
final class Arguments {
  private final StateOptions options;

  Arguments(StateOptions options) {
    this.options = options;
  }

  int maxNameBytes() {
    return options.maxNameBytes();
  }

  static Result.Rejected invalid(String message) {
    return new Result.Rejected(Outcome.INVALID_ARGUMENT, message, 0, 0);
  }

  /** The refusal for the first problem that is not null, if any. */
  static Optional<Result> firstInvalid(String... problems) {
    for (String problem : problems) {
      if (problem != null) {
        return Optional.of(invalid(problem));
      }
    }
    return Optional.empty();
  }

  static String negative(String field, long value) {
    return value < 0 ? field + " " + value + " < 0" : null;
  }

  /** Why {@code value} is no valid name; null if it is one. */
  String badName(String field, String value) {
    if (value == null) {
      return field + " is missing";
    }
    int length = utf8Length(value);
    if (length < 0) {
      return field + " is not valid UTF-16";
    }
    if (length < 1 || length > options.maxNameBytes()) {
      return field + " has " + length + " UTF-8 bytes, allowed 1.." + options.maxNameBytes();
    }
    return null;
  }

  /** UTF-8 length, or −1 for a string that cannot be encoded (an unpaired surrogate). */
  static int utf8Length(String value) {
    try {
      return ByteWriter.utf8(value).length;
    } catch (IllegalArgumentException e) {
      return -1;
    }
  }
}
