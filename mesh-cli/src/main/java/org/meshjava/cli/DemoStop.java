package org.meshjava.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Comparator;
import org.jspecify.annotations.Nullable;

/**
 * The end of {@code mesh demo}'s temporary folder, by whichever comes first of the demo's own end
 * and a stop by signal (a shutdown hook). Either removes all of the folder; the stop first closes
 * what the demo has open in it (its journal, then the steward that owns it), so that nothing is
 * written into the folder while, or after, it is removed. The stop says "stopped before it ended"
 * only while the demo has not printed everything. Thread-safe: the hook's thread and the demo's
 * share it, and one of them removes the folder while the other waits.
 */
final class DemoStop {
  /** Where the stop hook is put and taken back: the JVM's ({@link #RUNTIME}), or a test's. */
  interface Hooks {
    void add(Thread hook);

    /** Takes {@code hook} back; false where the JVM is already stopping and runs it. */
    boolean remove(Thread hook);
  }

  static final Hooks RUNTIME =
      new Hooks() {
        @Override
        public void add(Thread hook) {
          Runtime.getRuntime().addShutdownHook(hook);
        }

        @Override
        public boolean remove(Thread hook) {
          try {
            return Runtime.getRuntime().removeShutdownHook(hook);
          } catch (IllegalStateException shuttingDown) {
            return false;
          }
        }
      };

  private final Hooks hooks;
  private final PrintStream err;
  private final Thread hook;
  private @Nullable Path dir;
  private @Nullable AutoCloseable open;
  private boolean printed;
  private boolean over;
  private boolean stoppedBySignal;
  private boolean refusedByStop;

  /**
   * Puts the stop hook in place before the folder is made, so that no moment leaves it unremoved.
   */
  DemoStop(Hooks hooks, PrintStream err) {
    this.hooks = hooks;
    this.err = err;
    this.hook = new Thread(this::stopped, "mesh-demo-stopped");
    hooks.add(hook);
  }

  /** Makes the demo's folder; a seam for tests. */
  @FunctionalInterface
  interface Making {
    Path make() throws IOException;
  }

  /**
   * Makes the demo's folder with a stop held off until it is made: a stop from then on removes it.
   * Held off, as a stop between the folder's making and this learning of it found no folder to
   * remove, and the folder stayed behind; and refused after a stop, as one made then would stay.
   *
   * @throws StoppedException where a stop came first: nothing is made
   */
  synchronized Path make(Making making) throws IOException {
    if (stoppedBySignal) {
      throw new StoppedException();
    }
    Path made = making.make();
    this.dir = made;
    return made;
  }

  /** Opens what the demo writes into its folder; a seam for tests. */
  @FunctionalInterface
  interface Opening<T extends AutoCloseable> {
    T open() throws Exception;
  }

  /** A stop by signal came first: the demo opens nothing more in its (removed) folder. */
  static final class StoppedException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    StoppedException() {
      super("mesh demo was stopped; its temporary folder is removed");
    }
  }

  /**
   * Opens what the demo writes into its folder (the journal, then the steward that owns it, in
   * place of the journal) with a stop held off until it is open, so a stop then closes it before
   * removing the folder. Closing the steward lets a serve in flight finish and be journalled, and
   * nothing is written once it returns. Held off, as a stop part way through an opening removed the
   * folder while the opening went on making files in it, or before the demo had handed over what it
   * opened, which then stayed open and could leave the folder behind. An opening that fails closes
   * what was open (a steward whose build fails never took the journal over, which stayed open until
   * the JVM exited), its failure carrying the close's.
   *
   * @throws StoppedException where a stop has already removed the folder: nothing is opened
   */
  synchronized <T extends AutoCloseable> T open(Opening<T> opening) throws Exception {
    if (stoppedBySignal) {
      throw new StoppedException();
    }
    T writer;
    try {
      writer = opening.open();
    } catch (Throwable failed) {
      AutoCloseable w = open;
      open = null;
      if (w != null) {
        try {
          w.close();
        } catch (Throwable alsoFailed) {
          failed.addSuppressed(alsoFailed);
        }
      }
      throw failed;
    }
    this.open = writer;
    return writer;
  }

  /**
   * The demo's thread was refused by a stop by signal ({@link StoppedException}, or MiniLM's load
   * refused as the JVM stops) and ends without a line of its own: the stop's hook says it, even
   * where this thread's {@link #end} removes the folder first.
   */
  synchronized void refusedByStop() {
    refusedByStop = true;
  }

  /** Everything the demo prints is out: a stop from now on removes the folder without a word. */
  synchronized void printed() {
    printed = true;
  }

  /**
   * The demo ends (done, failed, or its folder never made): removes the folder, then the hook. In
   * that order: a stop after the hook was taken back would cut the removal short (the JVM halts
   * once its hooks have run), leaving part of the folder; a stop during it waits, then finds it
   * gone.
   */
  void end() throws IOException {
    try {
      synchronized (this) {
        Path d = dir;
        if (d != null) {
          removeTemporaryFolder(d);
        }
        over = true;
      }
    } finally {
      hooks.remove(hook);
    }
  }

  /** What a stop by signal does (the hook's work). */
  private synchronized void stopped() {
    if (over) {
      // The demo's thread ended first and removed the folder. Where it ended because this stop
      // refused it (MiniLM's load refuses once the JVM is stopping), it left the line to this
      // hook, which said nothing at all: the user's Ctrl-C got no word.
      Path d = dir;
      if (refusedByStop && !printed && d != null) {
        err.println(
            "mesh demo: stopped before it ended; its temporary journal folder "
                + d
                + " was removed");
        err.flush();
      }
      return;
    }
    stoppedBySignal = true;
    Path d = dir;
    if (d == null) {
      err.println("mesh demo: stopped before it ended");
      err.flush();
      return;
    }
    String removed;
    try {
      closeWhatIsOpen();
      removeTemporaryFolder(d);
      if (printed) {
        return;
      }
      removed = "its temporary journal folder " + d + " was removed";
    } catch (IOException | RuntimeException e) {
      removed = "its temporary journal folder " + d + " could not be removed (" + e + ")";
    }
    err.println("mesh demo: " + (printed ? "" : "stopped before it ended; ") + removed);
    err.flush();
  }

  /**
   * Closes what the demo has open in its folder. Removed under an open journal, the folder lost
   * files the demo's thread went on writing to (a record acknowledged into an unlinked file) or
   * gained a file it made after the walk, which then left the folder behind. A close that fails
   * still lets the removal go on.
   */
  private void closeWhatIsOpen() {
    AutoCloseable w = open;
    open = null;
    if (w == null) {
      return;
    }
    try {
      w.close();
    } catch (Exception e) {
      // The folder goes either way: whatever the close could not write was bound for it.
    }
  }

  /**
   * Removes the whole temporary folder the journal lives in, whatever the journal put there; one
   * already gone is no error.
   */
  private static void removeTemporaryFolder(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (var paths = Files.walk(dir)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (NoSuchFileException alreadyGone) {
      // Gone while this walked it.
    } catch (UncheckedIOException u) {
      if (!(u.getCause() instanceof NoSuchFileException)) {
        throw u;
      }
    }
  }
}
