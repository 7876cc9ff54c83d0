package org.meshjava.journal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.journal.internal.JournalFile;

/**
 * The journal's group commit against a sequential specification, with a crash at every point (issue
 * 21 item 5). Threads append concurrently through the real {@link FileJournal}; a {@link
 * FileJournal.Syncer} records each sync point (the length forced) and each append records the
 * forced length it saw when its {@code await} returned. Then:
 *
 * <ul>
 *   <li><b>Sequential specification.</b> The journal is one log: sequences 0..n−1 in file order,
 *       every appended entry exactly once, each thread's entries in the order it appended them.
 *   <li><b>Acknowledged means durable.</b> No {@code await} returned before a sync covered its
 *       record's last byte.
 *   <li><b>Crash at every point.</b> A crash leaves what the last sync forced plus any prefix of
 *       the bytes written after it. For every sync point and every byte offset from it to the next
 *       (every offset of the last group; a sample of the others unless {@code -Pslow}), recovery of
 *       the file cut there ({@link JournalFile#parse}, which {@link FileJournal#open} runs) yields
 *       exactly the records whole in those bytes, a prefix of the log, and holds every record
 *       acknowledged by the time of that sync point.
 * </ul>
 */
class GroupCommitCrashModelTest {
  @TempDir Path dir;

  /** Runs made by this test so far, naming each run's file. */
  private int runs;

  /** What one concurrent run left behind. */
  private record Run(
      byte[] file,
      List<Long> syncPoints,
      Map<Long, Long> forcedWhenAcked,
      Map<Integer, List<Long>> seqsByThread,
      int appended) {}

  private Run run(int threads, int each) throws Exception {
    // A file of its own per run: the long test runs five rounds, and a second round on the first
    // one's file appended to its records (400 found where 200 were appended).
    Path p = dir.resolve("group-" + threads + "x" + each + "-" + runs++ + ".log");
    List<Long> syncPoints = new CopyOnWriteArrayList<>();
    AtomicLong forced = new AtomicLong();
    FileJournal.Syncer observing =
        (channel, length) -> {
          channel.force(false);
          syncPoints.add(length);
          forced.accumulateAndGet(length, Math::max);
        };
    Map<Long, Long> forcedWhenAcked = new ConcurrentHashMap<>();
    Map<Integer, List<Long>> seqsByThread = new ConcurrentHashMap<>();
    CyclicBarrier start = new CyclicBarrier(threads);
    try (FileJournal j = FileJournal.open(p, FileChannel::tryLock, observing);
        ExecutorService pool = Executors.newFixedThreadPool(threads)) {
      List<Future<?>> fs = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int thread = t;
        fs.add(
            pool.submit(
                () -> {
                  List<Long> mine = new ArrayList<>();
                  start.await();
                  for (int i = 0; i < each; i++) {
                    Journal.Pending pending = j.enqueue(FileJournalTest.sealed(thread * each + i));
                    pending.await();
                    forcedWhenAcked.put(pending.record().seq(), forced.get());
                    mine.add(pending.record().seq());
                  }
                  seqsByThread.put(thread, mine);
                  return null;
                }));
      }
      for (Future<?> f : fs) {
        f.get();
      }
    }
    return new Run(
        Files.readAllBytes(p),
        List.copyOf(syncPoints),
        forcedWhenAcked,
        seqsByThread,
        threads * each);
  }

  /** The end offset (exclusive) of each record's line in {@code file}. */
  private static long[] lineEnds(byte[] file) {
    List<Long> ends = new ArrayList<>();
    for (int i = 0; i < file.length; i++) {
      if (file[i] == '\n') {
        ends.add(i + 1L);
      }
    }
    return ends.stream().mapToLong(Long::longValue).toArray();
  }

  private static void check(Run run, int otherGroupsStride) throws Exception {
    List<JournalRecord> log = JournalFile.parse(run.file()).contents().records();
    // Sequential specification: one log, every entry once, each thread's in its own order.
    assertThat(log).hasSize(run.appended());
    for (int i = 0; i < log.size(); i++) {
      assertThat(log.get(i).seq()).isEqualTo(i);
    }
    assertThat(log.stream().map(r -> ((JournalEntry.Sealed) r.entry()).sequence()).sorted())
        .containsExactlyElementsOf(
            java.util.stream.LongStream.range(0, run.appended()).boxed().toList());
    for (Map.Entry<Integer, List<Long>> t : run.seqsByThread().entrySet()) {
      List<Long> seqs = t.getValue();
      for (int i = 0; i < seqs.size(); i++) {
        long appended = ((JournalEntry.Sealed) log.get(seqs.get(i).intValue()).entry()).sequence();
        assertThat(appended).isEqualTo((long) t.getKey() * seqs.size() + i);
        if (i > 0) {
          assertThat(seqs.get(i)).isGreaterThan(seqs.get(i - 1));
        }
      }
    }
    // Acknowledged means durable: a sync covered each record's last byte before its await returned.
    long[] ends = lineEnds(run.file());
    for (Map.Entry<Long, Long> a : run.forcedWhenAcked().entrySet()) {
      assertThat(ends[a.getKey().intValue()])
          .as("record %d acknowledged with %d bytes forced", a.getKey(), a.getValue())
          .isLessThanOrEqualTo(a.getValue());
    }
    // Crash at every sync point, and at every byte written after it up to the next.
    List<Long> points = new ArrayList<>();
    points.add(0L);
    points.addAll(run.syncPoints());
    assertThat(points.getLast()).isEqualTo(run.file().length);
    for (int k = 0; k < points.size(); k++) {
      long from = points.get(k);
      long to = k + 1 < points.size() ? points.get(k + 1) : from;
      boolean lastGroup = k >= points.size() - 2;
      long stride = lastGroup ? 1 : Math.max(1, otherGroupsStride);
      long ackedByThen = run.forcedWhenAcked().values().stream().filter(f -> f <= from).count();
      for (long cut = from; cut <= to; cut += stride) {
        crashAt(run.file(), log, ends, cut, ackedByThen);
      }
      crashAt(run.file(), log, ends, to, ackedByThen);
    }
  }

  private static void crashAt(
      byte[] file, List<JournalRecord> log, long[] ends, long cut, long ackedByThen)
      throws JournalException {
    JournalFile.Contents c = JournalFile.parse(Arrays.copyOf(file, (int) cut)).contents();
    int whole = 0;
    while (whole < ends.length && ends[whole] <= cut) {
      whole++;
    }
    assertThat(c.records())
        .as("recovery of the first %d bytes", cut)
        .isEqualTo(log.subList(0, whole));
    assertThat(c.goodLength()).isEqualTo(whole == 0 ? 0 : ends[whole - 1]);
    assertThat((long) c.records().size())
        .as("every record acknowledged before the crash at %d survives", cut)
        .isGreaterThanOrEqualTo(ackedByThen);
  }

  @Test
  void concurrentAppends_crashAtEverySyncPoint_recoverAPrefixHoldingEveryAcknowledgedRecord()
      throws Exception {
    check(run(4, 12), 7);
  }

  @Test
  @Tag("slow")
  void concurrentAppends_crashAtEveryByte_long() throws Exception {
    for (int round = 0; round < 5; round++) {
      check(run(8, 25), 1);
    }
  }
}
