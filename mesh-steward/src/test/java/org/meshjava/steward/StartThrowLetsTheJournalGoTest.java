package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.nio.file.Path;
import java.util.Map;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.core.ContentId;
import org.meshjava.jcp.GrantChain;
import org.meshjava.journal.FileJournal;
import org.meshjava.journal.ForwardingJournal;
import org.meshjava.journal.Journal.RecordSink;
import org.meshjava.journal.JournalException;
import org.meshjava.journal.JournalPosition;

/**
 * Whatever a start's replay throws, the build lets go of the journal it claimed: the caller, handed
 * no steward, cannot close it, and its lock would refuse every later start in this process. The
 * typed refusals let it go themselves; these are the throws that pass them.
 */
class StartThrowLetsTheJournalGoTest {
  @TempDir Path dir;

  private final GrantFixture f = new GrantFixture();

  /** An {@link InternalError} whose frames cannot be read: the fault's check itself met a throw. */
  private static final class Frameless extends InternalError {
    private static final long serialVersionUID = 1L;

    Frameless() {
      super("not a mapped read's fault");
    }

    @Override
    public StackTraceElement[] getStackTrace() {
      throw new IllegalStateException("no frames to give");
    }
  }

  /**
   * Regression: a runtime exception out of the replay (a journal's own code failing) passed the
   * refusals and left the journal claimed and locked; a second open of its file was refused.
   */
  @Test
  void aRuntimeExceptionOutOfTheReplay_passesAsItIs_theJournalLetGo() throws Exception {
    assertLetGo(() -> new IllegalStateException("the reader broke"), IllegalStateException.class);
  }

  /**
   * Regression: an {@link InternalError} out of the replay that is no mapped read's fault, whose
   * frames throw when the start asks whether it is one, left the journal locked.
   */
  @Test
  void anInternalErrorThatIsNoFault_passesAsItIs_theJournalLetGo() throws Exception {
    assertLetGo(Frameless::new, InternalError.class);
  }

  /** The JVM failing in the replay passes as it is, the journal let go (held before too). */
  @Test
  void theJvmFailingInTheReplay_passesAsItIs_theJournalLetGo() throws Exception {
    assertLetGo(() -> new OutOfMemoryError("simulated"), OutOfMemoryError.class);
  }

  private void assertLetGo(Supplier<Throwable> replayThrows, Class<?> passes) throws Exception {
    Path path = dir.resolve("journal");
    FileJournal file = FileJournal.open(path);
    ForwardingJournal breaking =
        new ForwardingJournal(file) {
          @Override
          public void read(JournalPosition from, Map<ContentId, GrantChain> chains, RecordSink sink)
              throws JournalException {
            Throwable t = replayThrows.get();
            if (t instanceof RuntimeException r) {
              throw r;
            }
            throw (Error) t;
          }
        };

    Throwable thrown = catchThrowable(() -> f.steward(breaking).build().close());

    assertThat(thrown).isInstanceOf(passes);
    // The file's lock was let go: it opens again, and a steward starts on it.
    try (Steward again = f.steward(FileJournal.open(path)).build()) {
      assertThat(again.head().nextSequence()).isZero();
    }
  }
}
