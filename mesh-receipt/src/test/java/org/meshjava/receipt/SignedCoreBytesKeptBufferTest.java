package org.meshjava.receipt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * {@link SignedCoreBytes} writes into a buffer its thread keeps from seal to seal (session 39,
 * mesh-bench: 1 KiB less garbage per seal). Nothing of one core may reach the next: a core written
 * after a smaller or larger one, after one refused part-way (an unpaired surrogate in a name), or
 * after one that grew the buffer past what a thread keeps, is byte for byte the map's encoding; so
 * are cores written on several threads at once and on a virtual thread, which keeps no buffer.
 */
class SignedCoreBytesKeptBufferTest {
  /** {@link SignedCoreBytesTest#everyShape}: bare and full generation and decision receipts. */
  private static final List<MeshReceipt> SHAPES = SignedCoreBytesTest.everyShape();

  private static MeshReceipt small() {
    return SHAPES.get(0);
  }

  private static MeshReceipt full() {
    return SHAPES.get(3);
  }

  private static MeshReceipt decision() {
    return SHAPES.get(2);
  }

  private static MeshReceipt named(String name) {
    return TestReceipts.genesis(
        TestReceipts.generationDraft().backend(name).recipe(name).route("r " + name));
  }

  private static void assertWrittenAsTheMap(MeshReceipt r) {
    assertThat(SignedCoreBytes.of(r)).as(r.toString()).isEqualTo(r.toSignedCore().encode());
  }

  @Test
  void aCoreAfterALargerASmallerARefusedAndAnOverlongOne_isTheMapsEncoding() {
    MeshReceipt refused = named("model-" + (char) 0xD83D + "-late");
    List<MeshReceipt> order =
        List.of(
            full(),
            small(),
            full(),
            named("x".repeat(8_000)), // three names: past what a thread keeps
            small(),
            named("y".repeat(1_000)), // grows it, within what a thread keeps
            small(),
            decision(),
            full());
    for (MeshReceipt r : order) {
      assertWrittenAsTheMap(r);
      // A refusal part-way leaves the buffer holding part of a core, and the writer's count.
      assertThatThrownBy(() -> SignedCoreBytes.of(refused))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("unpaired surrogate");
    }
  }

  /**
   * The buffer a thread keeps stays at most 16 KiB: a core that grew it past that (three names of 8
   * 000 characters) leaves a small one behind, so a pool of threads that once sealed a huge core
   * does not each hold its size. Read through reflection, as nothing else shows it.
   */
  @Test
  void aThreadKeepsAtMost16KiB_afterACoreThatGrewItPastThat() throws Exception {
    Field kept = SignedCoreBytes.class.getDeclaredField("KEPT");
    kept.setAccessible(true);
    ThreadLocal<?> perThread = (ThreadLocal<?>) kept.get(null);
    int[] lengths;
    try (ExecutorService one = Executors.newSingleThreadExecutor()) {
      lengths =
          one.submit(
                  () -> {
                    assertWrittenAsTheMap(named("y".repeat(1_000)));
                    int grown = keptLength(perThread.get());
                    assertWrittenAsTheMap(named("x".repeat(8_000)));
                    return new int[] {grown, keptLength(perThread.get())};
                  })
              .get();
    }
    assertThat(lengths[0]).as("a 4 KB core's buffer, kept").isBetween(2 << 10, 16 << 10);
    assertThat(lengths[1]).as("after a 24 KB core").isLessThanOrEqualTo(16 << 10);
  }

  private static int keptLength(Object slot) {
    byte[] kept = ((byte[][]) slot)[0];
    return kept == null ? 0 : kept.length;
  }

  /**
   * A thread's slot holds only JDK types (a {@code byte[][]} holding the buffer), never an object
   * of a class of ours: a container's pooled thread outlives a redeployed application, and a value
   * of our class in its thread-local map would keep the old application's class loader, and every
   * class it loaded, reachable for as long as the thread lives. Read through reflection, as nothing
   * else shows it.
   */
  @Test
  void aThreadsSlot_holdsOnlyJdkTypes_soAPooledThreadPinsNoClassLoaderOfOurs() throws Exception {
    Field kept = SignedCoreBytes.class.getDeclaredField("KEPT");
    kept.setAccessible(true);
    ThreadLocal<?> perThread = (ThreadLocal<?>) kept.get(null);
    Object slot;
    try (ExecutorService one = Executors.newSingleThreadExecutor()) {
      slot =
          one.submit(
                  () -> {
                    assertWrittenAsTheMap(full());
                    return perThread.get();
                  })
              .get();
    }
    assertThat(slot.getClass().getClassLoader())
        .as("the loader of the slot's %s", slot.getClass().getName())
        .isNull();
    assertThat(((Object[]) slot)[0]).as("what the slot holds").isInstanceOf(byte[].class);
  }

  @Test
  void coresWrittenOnSeveralThreadsAtOnce_andOnAVirtualThread_areEachTheMapsEncoding()
      throws Exception {
    List<MeshReceipt> mix = List.of(small(), full(), named("modèle-ünï"), decision());
    List<Callable<Void>> work = new ArrayList<>();
    for (int t = 0; t < 4; t++) {
      int offset = t;
      work.add(
          () -> {
            for (int i = 0; i < 500; i++) {
              assertWrittenAsTheMap(mix.get((i + offset) % mix.size()));
            }
            return null;
          });
    }
    try (ExecutorService platform = Executors.newFixedThreadPool(4)) {
      for (Future<Void> f : platform.invokeAll(work)) {
        f.get();
      }
    }
    try (ExecutorService virtual = Executors.newVirtualThreadPerTaskExecutor()) {
      for (Future<Void> f : virtual.invokeAll(work)) {
        f.get();
      }
    }
  }
}
