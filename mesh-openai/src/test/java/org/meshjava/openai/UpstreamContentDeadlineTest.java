package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.util.component.AbstractLifeCycle;
import org.eclipse.jetty.util.thread.Scheduler;
import org.junit.jupiter.api.Test;

/**
 * {@link ContentDeadline} on a scheduler the test runs by hand, so each case is its own moment: the
 * scheduled check firing past the deadline aborts the exchange (the abort alone ends a read blocked
 * on an upstream that went quiet after a trickle: the HTTP client's idle timeout counts from the
 * last byte, later), firing early checks again later, and a stream closed or a deadline stopped
 * leaves nothing to fire.
 */
class UpstreamContentDeadlineTest {
  private static final String SILENT = "nothing arrived within the timeout";

  private final ManualScheduler scheduler = new ManualScheduler();
  private final List<Throwable> aborts = new ArrayList<>();

  private ContentDeadline deadline(Duration timeout) {
    return new ContentDeadline(timeout, scheduler, aborts::add);
  }

  @Test
  void theCheckFiringPastTheDeadline_abortsOnce_sayingNothingArrived() {
    ContentDeadline d = deadline(Duration.ofNanos(1));
    assertThat(scheduler.tasks).hasSize(1);
    scheduler.tasks.get(0).run();
    assertThat(aborts).singleElement().isInstanceOf(ContentDeadline.Passed.class);
    assertThat(aborts.get(0)).hasMessage(SILENT);
    assertThat(scheduler.tasks).as("nothing scheduled after the abort").hasSize(1);
    // Stopping after the abort (the stream closed once the exchange failed) has nothing to cancel.
    assertThatCode(d::stop).doesNotThrowAnyException();
    assertThatCode(d::stop).doesNotThrowAnyException();
    assertThat(aborts).hasSize(1);
  }

  @Test
  void bytesWithoutContent_changeTheWords_untilContentComes() throws Exception {
    ContentDeadline d = deadline(Duration.ofHours(1));
    InputStream in =
        d.watching(
            new ByteArrayInputStream(": keep-alive\n\n".getBytes(StandardCharsets.US_ASCII)));
    assertThat(in.read(new byte[4], 0, 4)).isEqualTo(4);
    assertThat(d.words()).startsWith("it sent no content within the timeout");
    d.content();
    assertThat(d.words()).isEqualTo(SILENT);
  }

  @Test
  void aReadPastTheDeadline_fails_withoutReading() {
    ContentDeadline d = deadline(Duration.ofNanos(1));
    ByteArrayInputStream bytes = new ByteArrayInputStream(new byte[] {1, 2});
    InputStream in = d.watching(bytes);
    assertThatThrownBy(() -> in.read(new byte[2], 0, 2))
        .isInstanceOf(ContentDeadline.Passed.class)
        .hasMessage(SILENT);
    assertThat(bytes.available()).isEqualTo(2);
  }

  @Test
  void theCheckFiringBeforeTheDeadline_checksAgainLater_andAbortsNothing() {
    ContentDeadline d = deadline(Duration.ofHours(1));
    d.content();
    scheduler.tasks.get(0).run();
    assertThat(aborts).isEmpty();
    assertThat(scheduler.tasks).as("checked again when the deadline is due").hasSize(2);
    d.stop();
    assertThat(scheduler.tasks.get(1).cancelled).isTrue();
    scheduler.tasks.get(1).run();
    assertThat(aborts).as("a stopped deadline fires nothing").isEmpty();
  }

  @Test
  void closingTheWatchedStream_cancelsTheCheck() throws Exception {
    ContentDeadline d = deadline(Duration.ofHours(1));
    InputStream in = d.watching(new ByteArrayInputStream(new byte[] {1}));
    in.close();
    assertThat(scheduler.tasks.get(0).cancelled).isTrue();
    scheduler.tasks.get(0).run();
    assertThat(aborts).isEmpty();
  }

  @Test
  void aSingleByteRead_returnsTheByteUnsigned_thenTheEnd() throws Exception {
    ContentDeadline d = deadline(Duration.ofHours(1));
    InputStream in = d.watching(new ByteArrayInputStream(new byte[] {0x61, (byte) 0xC3}));
    assertThat(in.read()).isEqualTo(0x61);
    assertThat(in.read()).isEqualTo(0xC3);
    assertThat(in.read()).isEqualTo(-1);
  }

  @Test
  void anEmptyReadOrTheEnd_isNoByteArriving() throws Exception {
    ContentDeadline d = deadline(Duration.ofHours(1));
    InputStream in = d.watching(new ByteArrayInputStream(new byte[] {1}));
    assertThat(in.read(new byte[1], 0, 0)).isZero();
    assertThat(d.words()).isEqualTo(SILENT);
    InputStream ended = d.watching(new ByteArrayInputStream(new byte[0]));
    assertThat(ended.read(new byte[1], 0, 1)).isEqualTo(-1);
    assertThat(d.words()).isEqualTo(SILENT);
  }

  /** Records each scheduled check and runs it only when the test says so. */
  private static final class ManualScheduler extends AbstractLifeCycle implements Scheduler {
    final List<ManualTask> tasks = new ArrayList<>();

    @Override
    public Task schedule(Runnable task, long delay, TimeUnit units) {
      ManualTask t = new ManualTask(task);
      tasks.add(t);
      return t;
    }
  }

  private static final class ManualTask implements Scheduler.Task {
    private final Runnable task;
    boolean cancelled;

    ManualTask(Runnable task) {
      this.task = task;
    }

    void run() {
      task.run();
    }

    @Override
    public boolean cancel() {
      cancelled = true;
      return true;
    }
  }
}
