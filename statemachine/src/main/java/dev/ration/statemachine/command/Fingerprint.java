package dev.ration.statemachine.command;

import dev.ration.statemachine.command.LeaseCommand.SetLimit;
import dev.ration.statemachine.command.LeaseCommand.AcquireLease;
import dev.ration.statemachine.command.LeaseCommand.RenewLease;
import dev.ration.statemachine.command.LeaseCommand.ReturnLease;
import dev.ration.statemachine.command.TtlCommand.PutEntry;
import dev.ration.statemachine.command.TtlCommand.CompareAndSetEntry;
import dev.ration.statemachine.command.TtlCommand.RefreshEntry;
import dev.ration.statemachine.command.TtlCommand.DeleteEntry;
import dev.ration.statemachine.command.TtlCommand.SetNamespace;
import dev.ration.statemachine.command.QuotaCommand.SetQuota;
import dev.ration.statemachine.command.QuotaCommand.Reserve;
import dev.ration.statemachine.command.QuotaCommand.CompleteReservation;
import dev.ration.statemachine.command.QuotaCommand.CancelReservation;
import dev.ration.statemachine.command.QuotaCommand.IngestUsage;
import dev.ration.statemachine.command.QuotaCommand.AckUsage;
import dev.ration.statemachine.command.QuotaCommand.Reconcile;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * What a request asked for, kept beside its first answer so that a request key reused for
 * another request is recognised: the command's code and the first {@link #DIGEST_BYTES} bytes
 * of the SHA-256 of its log encoding (command code and fields, exactly as {@link BatchCodec}
 * writes them inside a proposal). The log encoding is canonical, so every replica computes the
 * same fingerprint from the same command; nothing here reads a clock or a random source.
 *
 * <p>Sixteen bytes make an accidental match of two different requests under one request key
 * (about 2^-128) far less likely than any hardware fault; the fingerprint is not a security
 * boundary (a client can always spend its own request ids), only a guard against reuse.
 */
public record Fingerprint(int commandCode, byte[] digest) {
  public static final int DIGEST_BYTES = 16;

  /**
   * The protocol operation each client command code answers, named as the wire names it, so a
   * refusal speaks the caller's language: each client command declares it beside its code
   * ({@code OPERATION} for {@code CODE}, {@code KEYED_OPERATION} for {@code KEYED_CODE}).
   * ProtocolNamesTest (server) checks every mutation kind against it.
   */
  private static final Map<Integer, String> OPERATIONS = operations();

  private static Map<Integer, String> operations() {
    Map<Integer, String> out = new java.util.HashMap<>();
    java.util.ArrayDeque<Class<?>> todo = new java.util.ArrayDeque<>(List.of(Command.class));
    while (!todo.isEmpty()) {
      Class<?> type = todo.pop();
      if (type.getPermittedSubclasses() != null) {
        todo.addAll(List.of(type.getPermittedSubclasses()));
      }
      for (String prefix : List.of("", "KEYED_", "FENCED_", "CLOSED_", "TENANT_")) {
        try {
          int code = type.getField(prefix + "CODE").getInt(null);
          String name = (String) type.getField(prefix + "OPERATION").get(null);
          out.put(code, name);
        } catch (NoSuchFieldException notAClientCommand) {
          // Kernel commands (Tick, NewEpoch) answer no protocol operation.
        } catch (IllegalAccessException e) {
          throw new IllegalStateException(type.getName() + " has no public OPERATION", e);
        }
      }
    }
    return Map.copyOf(out);
  }

  public Fingerprint {
    if (commandCode < 0 || commandCode > 0xFF || digest.length != DIGEST_BYTES) {
      throw new IllegalArgumentException("fingerprint of command code " + commandCode + " with "
          + digest.length + " digest bytes, expected " + DIGEST_BYTES);
    }
    digest = digest.clone();
  }

  /** The fingerprint of {@code command}: deterministic on every replica. */
  public static Fingerprint of(Command command) {
    // The command's bytes as a batch carries them after the proposal's key: code and fields.
    byte[] encoded = BatchCodec.encodeCommand(command);
    MessageDigest sha;
    try {
      sha = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      // Every Java platform must provide SHA-256.
      throw new IllegalStateException("SHA-256 is not available", e);
    }
    sha.update(encoded);
    return new Fingerprint(command.code(), Arrays.copyOf(sha.digest(), DIGEST_BYTES));
  }

  /** The digest; a copy, so the record stays immutable. */
  @Override
  public byte[] digest() {
    return digest.clone();
  }

  /** Whether {@code other} fingerprints the same request (same code, same digest). */
  public boolean matches(Fingerprint other) {
    return commandCode == other.commandCode && Arrays.equals(digest, other.digest);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Fingerprint f && matches(f);
  }

  @Override
  public int hashCode() {
    return 31 * commandCode + Arrays.hashCode(digest);
  }

  @Override
  public String toString() {
    StringBuilder hex = new StringBuilder(operation()).append(':');
    for (byte b : digest) {
      hex.append(Character.forDigit((b >> 4) & 0xF, 16)).append(Character.forDigit(b & 0xF, 16));
    }
    return hex.toString();
  }

  /** The protocol operation this fingerprint's command answers, e.g. TTL_PUT. */
  public String operation() {
    return operationOf(commandCode);
  }

  /** The protocol operation of a command code; "command N" for one no client sends. */
  public static String operationOf(int commandCode) {
    String name = OPERATIONS.get(commandCode);
    return name != null ? name : "command " + commandCode;
  }
}
