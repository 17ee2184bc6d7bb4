package dev.eventide.trends.beam;

import dev.eventide.blockstore.BlockName;
import dev.eventide.blockstore.BlockStore;
import dev.eventide.blockstore.BlockStores;
import dev.eventide.trends.Sharing;
import dev.eventide.trends.internal.engine.TrendStateCodec;
import dev.eventide.trends.internal.engine.VersionedPlan;
import dev.eventide.trends.internal.engine.WorkloadVersion;
import dev.eventide.trends.query.Query;
import dev.eventide.trends.query.Workload;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.OutputStream;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.beam.sdk.coders.AtomicCoder;
import org.apache.beam.sdk.coders.ByteArrayCoder;

/**
 * Where the versions of a workload changed while the job runs are kept for the keys that evaluate
 * them: the change log writes each version it accepts as a block before it sends the version on,
 * and a key reads its version's block when its worker has not compiled that version yet (its timers
 * too, after a restore, when no element has brought the version). A version is named by a tag, its
 * number and the start of its block's hash ({@code 3.9f86d081884c7d65}), so a version decided again
 * after a restore, differently, is a version of its own.
 */
final class VersionStore implements Serializable {
  private static final long serialVersionUID = 1L;

  /** Compiled versions per worker JVM, the most recently used kept. */
  private static final int CACHED = 64;

  private static final Map<String, Compiled> COMPILED =
      new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Compiled> eldest) {
          return size() > CACHED;
        }
      };

  /** A version compiled alone (a key knows of no later version), and the codec of its state. */
  record Compiled(int number, VersionedPlan plan, TrendStateCodec codec) {}

  private final String uri;
  private final String ownerPrefix;
  private final Sharing sharing;

  /**
   * @param initial the workload the job started with: its query names file the versions, as
   *     retained events are filed, so two jobs of different queries may share a store
   */
  VersionStore(String uri, Workload initial, Sharing sharing) {
    BlockStores.checkUri(uri);
    this.uri = uri;
    this.ownerPrefix =
        "trends/"
            + String.join(",", initial.queries().stream().map(Query::name).toList())
            + "/versions/";
    this.sharing = sharing;
  }

  String uri() {
    return uri;
  }

  /**
   * Forgets every version this worker compiled, as a worker started afresh would have: the next key
   * of each version reads it from its store again.
   */
  static void forgetCompiled() {
    synchronized (COMPILED) {
      COMPILED.clear();
    }
  }

  /** Opens the store: the caller closes it. */
  BlockStore open() throws IOException {
    return RetainedBlocks.counted(BlockStores.open(uri));
  }

  /** Writes a version and returns its tag, once the block is durable. */
  static String write(BlockStore store, VersionStore where, WorkloadVersion version)
      throws IOException {
    BlockName name = store.write(where.owner(version.number()), serialize(version));
    return tag(version.number(), name);
  }

  /** Deletes a version's block (its keys have expired). */
  static void delete(BlockStore store, VersionStore where, String tag) throws IOException {
    BlockName name = find(store, where, tag);
    if (name != null) {
      store.delete(name);
    }
  }

  /**
   * The version of a tag, compiled; read from the store once per worker. Null when the store has it
   * no more: every window of the version has expired (or the purge delay was too short for a
   * restore, or the store is not the one the change log wrote to).
   */
  Compiled compiled(BlockStore store, String tag) {
    String cacheKey = uri + "|" + ownerPrefix + "|" + sharing + "|" + tag;
    synchronized (COMPILED) {
      Compiled c = COMPILED.get(cacheKey);
      if (c != null) {
        return c;
      }
    }
    WorkloadVersion version;
    try {
      BlockName name = find(store, this, tag);
      if (name == null) {
        return null;
      }
      version = deserialize(store.read(name));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read version " + tag + " from " + uri, e);
    }
    VersionedPlan plan = VersionedPlan.of(List.of(version), sharing);
    Compiled c =
        new Compiled(version.number(), plan, TrendStateCodec.of(plan.plan(version.number())));
    synchronized (COMPILED) {
      COMPILED.put(cacheKey, c);
    }
    return c;
  }

  private String owner(int number) {
    return ownerPrefix + number;
  }

  private static BlockName find(BlockStore store, VersionStore where, String tag)
      throws IOException {
    int dot = tag.indexOf('.');
    int number = Integer.parseInt(tag.substring(0, dot));
    String hash = tag.substring(dot + 1);
    for (BlockName name : store.list(where.owner(number))) {
      if (name.content().startsWith(hash)) {
        return name;
      }
    }
    return null;
  }

  private static String tag(int number, BlockName name) {
    return number + "." + name.content().substring(0, 16);
  }

  /** A version in Beam state or on the wire: its serialized form. */
  static final class VersionCoder extends AtomicCoder<WorkloadVersion> {
    private static final long serialVersionUID = 1L;
    private static final VersionCoder INSTANCE = new VersionCoder();

    static VersionCoder of() {
      return INSTANCE;
    }

    @Override
    public void encode(WorkloadVersion version, OutputStream out) throws IOException {
      ByteArrayCoder.of().encode(serialize(version), out);
    }

    @Override
    public WorkloadVersion decode(InputStream in) throws IOException {
      return deserialize(ByteArrayCoder.of().decode(in));
    }
  }

  static byte[] serialize(WorkloadVersion version) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(version);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot serialize version " + version.number(), e);
    }
    return bytes.toByteArray();
  }

  static WorkloadVersion deserialize(byte[] bytes) throws IOException {
    try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes))) {
      return (WorkloadVersion) in.readObject();
    } catch (ClassNotFoundException | ClassCastException e) {
      throw new IOException("a version block that holds no workload version: " + e, e);
    }
  }
}
