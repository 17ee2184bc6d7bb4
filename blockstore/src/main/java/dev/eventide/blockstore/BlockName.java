package dev.eventide.blockstore;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.regex.Pattern;

/**
 * The name of a block: the hash of its owner (the key and window whose state it holds) and the hash
 * of its contents, both in hex. Whatever an owner's key looks like ({@code ../../etc} included), a
 * name is only hex digits, so it never becomes a path of its own choosing.
 *
 * <pre>{@code
 * BlockName name = BlockName.of("sensor-7/2026-12-05T10:00", bytes);   // hash of owner, contents
 * BlockName same = BlockName.parse(name.path());                         // as the store files it
 * }</pre>
 */
public record BlockName(String owner, String content) {
  private static final Pattern OWNER = Pattern.compile("[0-9a-f]{32}");
  private static final Pattern CONTENT = Pattern.compile("[0-9a-f]{64}");

  public BlockName {
    if (!OWNER.matcher(owner).matches() || !CONTENT.matcher(content).matches()) {
      throw new IllegalArgumentException(
          "a block name is 32 + 64 hex digits, but was " + owner + "/" + content);
    }
  }

  /** Returns the name of a block of the owner with these contents. */
  public static BlockName of(String owner, byte[] contents) {
    return new BlockName(ownerHash(owner), hex(sha256(contents)));
  }

  /** The hash an owner's blocks are filed under. */
  public static String ownerHash(String owner) {
    return hex(sha256(owner.getBytes(StandardCharsets.UTF_8))).substring(0, 32);
  }

  /** Parses {@link #path()}. */
  public static BlockName parse(String path) {
    int slash = path.indexOf('/');
    if (slash < 0 || !path.endsWith(".blk")) {
      throw new IllegalArgumentException("not a block path: " + path);
    }
    return new BlockName(path.substring(0, slash), path.substring(slash + 1, path.length() - 4));
  }

  /** The relative path of the block in a store: {@code <owner>/<content>.blk}. */
  public String path() {
    return owner + "/" + content + ".blk";
  }

  @Override
  public String toString() {
    return path();
  }

  static byte[] sha256(byte[] bytes) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(bytes);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java runtime has SHA-256", e);
    }
  }

  private static String hex(byte[] bytes) {
    return HexFormat.of().formatHex(bytes);
  }
}
