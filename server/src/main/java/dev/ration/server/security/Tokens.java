package dev.ration.server.security;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Optional;

/**
 * The bearer token format, {@code rtn_<16 hex digits: id>_<43 base64url characters: secret>},
 * and its salted hash {@code SHA-256(salt || secret)}. The secret is 32 random bytes: with 256
 * bits of entropy a single fast hash is enough (a slow password hash protects guessable
 * secrets; these are not guessable), and checking a token costs microseconds on every HELLO.
 */
public final class Tokens {
  public static final String PREFIX = "rtn_";
  public static final int SECRET_BYTES = 32;
  public static final int SALT_BYTES = 16;
  /** Longest credential parsed as a token; anything longer is refused before it is read. */
  public static final int TOKEN_CHARS_MAX = 128;

  private static final SecureRandom RANDOM = new SecureRandom();

  private Tokens() {}

  /** A parsed token: its id and its secret. */
  public record Parsed(long tokenId, byte[] secret) {}

  /** A new token: what is printed once, and what the cluster stores. */
  public record Minted(long tokenId, String text, byte[] salt, byte[] hash) {
    @Override
    public String toString() {
      return "Minted[tokenId=" + String.format("%016x", tokenId) + "]"; // never the secret
    }
  }

  public static Minted mint() {
    long id;
    do {
      id = RANDOM.nextLong();
    } while (id == 0);
    byte[] secret = new byte[SECRET_BYTES];
    RANDOM.nextBytes(secret);
    byte[] salt = new byte[SALT_BYTES];
    RANDOM.nextBytes(salt);
    String text = PREFIX + String.format("%016x", id) + "_"
        + Base64.getUrlEncoder().withoutPadding().encodeToString(secret);
    return new Minted(id, text, salt, hash(salt, secret));
  }

  /** Parses a credential; empty (with no detail, to give a guesser nothing) if it is not a token. */
  public static Optional<Parsed> parse(byte[] credential) {
    if (credential.length < PREFIX.length() + 18 || credential.length > TOKEN_CHARS_MAX) {
      return Optional.empty();
    }
    String text = new String(credential, StandardCharsets.US_ASCII);
    if (!text.startsWith(PREFIX) || text.charAt(PREFIX.length() + 16) != '_') {
      return Optional.empty();
    }
    long id;
    try {
      id = Long.parseUnsignedLong(text.substring(PREFIX.length(), PREFIX.length() + 16), 16);
    } catch (NumberFormatException e) {
      return Optional.empty();
    }
    byte[] secret;
    try {
      secret = Base64.getUrlDecoder().decode(text.substring(PREFIX.length() + 17));
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
    if (secret.length != SECRET_BYTES || id == 0) {
      return Optional.empty();
    }
    // One spelling per token: the last character's two unused bits must be zero.
    if (!Base64.getUrlEncoder().withoutPadding().encodeToString(secret)
        .equals(text.substring(PREFIX.length() + 17))) {
      return Optional.empty();
    }
    return Optional.of(new Parsed(id, secret));
  }

  /** The id part of a token or of a token id as the CLI prints it (16 hex digits). */
  public static long parseId(String text) {
    String t = text.startsWith(PREFIX) && text.length() >= PREFIX.length() + 16
        ? text.substring(PREFIX.length(), PREFIX.length() + 16) : text;
    if (t.length() != 16) {
      throw new IllegalArgumentException("token id '" + text + "' is not 16 hex digits");
    }
    return Long.parseUnsignedLong(t, 16);
  }

  public static byte[] hash(byte[] salt, byte[] secret) {
    try {
      MessageDigest d = MessageDigest.getInstance("SHA-256");
      d.update(salt);
      d.update(secret);
      return d.digest();
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }

  /** Constant-time comparison of the presented secret's hash with the stored one. */
  public static boolean matches(byte[] salt, byte[] storedHash, byte[] secret) {
    return MessageDigest.isEqual(hash(salt, secret), storedHash);
  }

  /** The prefix of a token's configured hash line ({@link #hashLine}). */
  public static final String HASH_PREFIX = "rtnh.";

  /**
   * What a configuration may hold of {@code minted}: {@code rtnh.<id>.<salt>.<hash>} (base64url,
   * which never holds a '.'),
   * the id with the salted hash. It does not authenticate: the secret is not in it.
   */
  public static String hashLine(Minted minted) {
    Base64.Encoder b = Base64.getUrlEncoder().withoutPadding();
    return HASH_PREFIX + String.format("%016x", minted.tokenId()) + "." + b.encodeToString(minted.salt())
        + "." + b.encodeToString(minted.hash());
  }

  /** Reads {@link #hashLine}'s text: {id, salt, hash}; throws IllegalArgumentException naming the fault. */
  public static Object[] parseHashLine(String line) {
    String[] parts = line.trim().split("\\.", -1);
    if (parts.length != 4 || !line.trim().startsWith(HASH_PREFIX)) {
      throw new IllegalArgumentException("'" + line + "' is not rtnh.<16 hex id>.<salt>.<hash>"
          + " (as printed by ration token bootstrap)");
    }
    long id;
    byte[] salt;
    byte[] hash;
    try {
      id = Long.parseUnsignedLong(parts[1], 16);
      salt = Base64.getUrlDecoder().decode(parts[2]);
      hash = Base64.getUrlDecoder().decode(parts[3]);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("'" + line + "' does not decode: " + e.getMessage(), e);
    }
    if (parts[1].length() != 16 || id == 0 || salt.length < SALT_BYTES || hash.length != 32) {
      throw new IllegalArgumentException("'" + line + "' has a bad id, salt or hash length");
    }
    return new Object[] {id, salt, hash};
  }
}
