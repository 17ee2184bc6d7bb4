package dev.eventide.blockstore;

import com.google.api.services.storage.model.StorageObject;
import com.google.cloud.NoCredentials;
import com.google.cloud.storage.Storage;
import com.google.cloud.storage.StorageException;
import com.google.cloud.storage.StorageOptions;
import com.google.cloud.storage.contrib.nio.testing.LocalStorageHelper;
import com.google.cloud.storage.spi.v1.StorageRpc;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Google Cloud Storage in memory, for tests: google-cloud-nio's fake RPC layer, made to honour the
 * create-if-absent precondition as GCS does (HTTP 412 when the object exists), and, when flaky, to
 * fail every other object request with a transient HTTP 503 before doing anything — beneath the
 * client, so what a test sees is the client's own retries.
 */
final class FakeGcs implements InvocationHandler {
  private static final Set<String> OBJECT_REQUESTS =
      Set.of("create", "get", "load", "delete", "list");

  private final StorageRpc fake = (StorageRpc) LocalStorageHelper.customOptions(false).getRpc();
  private final boolean flaky;
  private final AtomicInteger requests = new AtomicInteger();
  final AtomicInteger failures = new AtomicInteger();

  private FakeGcs(boolean flaky) {
    this.flaky = flaky;
  }

  static FakeGcs reliable() {
    return new FakeGcs(false);
  }

  static FakeGcs flaky() {
    return new FakeGcs(true);
  }

  /** A client with {@link GcsBlockStore}'s retries over this fake. */
  Storage storage() {
    StorageRpc rpc =
        (StorageRpc)
            Proxy.newProxyInstance(
                StorageRpc.class.getClassLoader(), new Class<?>[] {StorageRpc.class}, this);
    return GcsBlockStore.withRetries(
            StorageOptions.newBuilder()
                .setProjectId("eventide-test")
                .setCredentials(NoCredentials.getInstance())
                .setServiceRpcFactory(options -> rpc))
        .build()
        .getService();
  }

  @Override
  public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
    if (OBJECT_REQUESTS.contains(method.getName())) {
      if (flaky && requests.incrementAndGet() % 2 == 1) {
        failures.incrementAndGet();
        throw new StorageException(503, "injected transient failure");
      }
      if (method.getName().equals("create")
          && args[0] instanceof StorageObject object
          && args[args.length - 1] instanceof Map<?, ?> options) {
        Object generation = options.get(StorageRpc.Option.IF_GENERATION_MATCH);
        if (generation != null && ((Number) generation).longValue() == 0 && exists(object)) {
          throw new StorageException(412, "Precondition Failed: " + object.getName() + " exists");
        }
        // The fake refuses options it does not implement; the precondition is handled here.
        args[args.length - 1] = Map.of();
      }
    }
    try {
      return method.invoke(fake, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }

  private boolean exists(StorageObject object) {
    try {
      return fake.get(object, Map.of()) != null;
    } catch (StorageException e) {
      if (e.getCode() == 404) {
        return false;
      }
      throw e;
    }
  }
}
