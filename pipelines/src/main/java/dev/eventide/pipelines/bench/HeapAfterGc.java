package dev.eventide.pipelines.bench;

import com.sun.management.GarbageCollectionNotificationInfo;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.LongConsumer;
import javax.management.NotificationEmitter;
import javax.management.openmbean.CompositeData;

/**
 * The heap in use after every garbage collection, from the JVM's GC notifications (heap pools
 * only): what a benchmark's live state costs, without the garbage between collections.
 */
public final class HeapAfterGc {
  private HeapAfterGc() {}

  /** Hands the bytes in use after each collection to {@code listener}, from now on. */
  public static void watch(LongConsumer listener) {
    Set<String> heapPools = new HashSet<>();
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      if (pool.getType() == MemoryType.HEAP) {
        heapPools.add(pool.getName());
      }
    }
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      ((NotificationEmitter) gc)
          .addNotificationListener(
              (notification, handback) -> {
                if (!notification
                    .getType()
                    .equals(GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION)) {
                  return;
                }
                GarbageCollectionNotificationInfo info =
                    GarbageCollectionNotificationInfo.from(
                        (CompositeData) notification.getUserData());
                long used = 0;
                for (Map.Entry<String, MemoryUsage> pool :
                    info.getGcInfo().getMemoryUsageAfterGc().entrySet()) {
                  if (heapPools.contains(pool.getKey())) {
                    used += pool.getValue().getUsed();
                  }
                }
                listener.accept(used);
              },
              null,
              null);
    }
  }
}
