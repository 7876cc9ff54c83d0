package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The demo's stop hook, run here as the JVM would on a signal: at every moment the temporary folder
 * is removed whole, and "stopped before it ended" is said only before the demo has printed
 * everything.
 */
class DemoStopTest {
  @TempDir Path tmp;

  private final ByteArrayOutputStream said = new ByteArrayOutputStream();
  private final PrintStream err = new PrintStream(said, true, StandardCharsets.UTF_8);

  /** Hooks that keep the hook for the test to run, and note whether the folder was there. */
  private final class Kept implements DemoStop.Hooks {
    final List<Thread> hooks = new ArrayList<>();
    final List<Boolean> folderThereWhenTakenBack = new ArrayList<>();

    /** Whether the JVM is stopping: a hook can no longer be taken back, it runs. */
    boolean stopping;

    @Override
    public void add(Thread hook) {
      hooks.add(hook);
    }

    @Override
    public boolean remove(Thread hook) {
      folderThereWhenTakenBack.add(Files.exists(tmp.resolve("mesh-demo")));
      return !stopping && hooks.remove(hook);
    }
  }

  /**
   * Regression (seen once in a clean-clone CI's DemoStoppedBySignalTest): a stop while MiniLM loads
   * makes the load refuse (the JVM is stopping), and the demo's thread then ended first, removing
   * the folder and leaving the line to the hook, which found the demo over and said nothing: the
   * user's Ctrl-C got no word. The hook says it once the demo has ended first, unless it printed
   * everything.
   */
  @Test
  void aStopWhoseRefusedLoadEndedTheDemoFirst_stillSaysSoInOneLine() throws Exception {
    Kept kept = new Kept();
    DemoStop stop = new DemoStop(kept, err);
    Path dir = folderWithAJournal();
    stop.make(() -> dir);
    kept.stopping = true;
    stop.refusedByStop();

    stop.end();
    kept.hooks.getFirst().run();

    assertThat(dir).doesNotExist();
    assertThat(said.toString(StandardCharsets.UTF_8))
        .isEqualTo(
            "mesh demo: stopped before it ended; its temporary journal folder "
                + dir
                + " was removed\n");
  }

  /**
   * Regression: a stop after the demo printed its last line (while its steward closed) said "mesh
   * demo: stopped before it ended", though nothing was left undone.
   */
  @Test
  void aStopAfterEverythingPrinted_removesTheFolder_withoutAWord() throws Exception {
    Kept kept = new Kept();
    DemoStop stop = new DemoStop(kept, err);
    stop.make(this::folderWithAJournal);
    stop.printed();

    kept.hooks.getFirst().run();

    assertThat(tmp.resolve("mesh-demo")).doesNotExist();
    assertThat(said.toString(StandardCharsets.UTF_8)).isEmpty();
  }

  /** A stop while the demo runs removes the folder and says so in one line. */
  @Test
  void aStopWhileTheDemoRuns_removesTheFolder_inOneLine() throws Exception {
    Kept kept = new Kept();
    DemoStop stop = new DemoStop(kept, err);
    Path dir = folderWithAJournal();
    stop.make(() -> dir);

    kept.hooks.getFirst().run();

    assertThat(dir).doesNotExist();
    assertThat(said.toString(StandardCharsets.UTF_8))
        .isEqualTo(
            "mesh demo: stopped before it ended; its temporary journal folder "
                + dir
                + " was removed\n");
  }

  /**
   * Regression: the demo's end took its hook back before removing the folder, so a stop between the
   * two found no hook to run, and the JVM halted the removal part way, leaving part of the folder.
   * The folder is gone before the hook is taken back.
   */
  @Test
  void theDemosEnd_removesTheFolder_beforeTakingItsHookBack() throws Exception {
    Kept kept = new Kept();
    DemoStop stop = new DemoStop(kept, err);
    stop.make(this::folderWithAJournal);
    stop.printed();

    stop.end();

    assertThat(kept.folderThereWhenTakenBack).containsExactly(false);
    assertThat(kept.hooks).isEmpty();
    assertThat(said.toString(StandardCharsets.UTF_8)).isEmpty();
  }

  /**
   * Regression: a stop while the demo wrote removed the folder under its open journal, so the
   * demo's thread went on appending to an unlinked file, or made a file after the walk and left the
   * folder behind. The stop closes what the demo has open (the steward, which owns the journal)
   * before it removes the folder, and still removes it where that close fails.
   */
  @Test
  void aStopWhileTheDemoWrites_closesItsJournal_beforeRemovingTheFolder() throws Exception {
    Kept kept = new Kept();
    DemoStop stop = new DemoStop(kept, err);
    Path dir = folderWithAJournal();
    stop.make(() -> dir);
    List<String> closed = new ArrayList<>();
    stop.<AutoCloseable>open(() -> () -> closed.add("journal, folder there: " + Files.exists(dir)));
    stop.<AutoCloseable>open(
        () ->
            () -> {
              closed.add("steward, folder there: " + Files.exists(dir));
              throw new IllegalStateException("the close failed");
            });

    kept.hooks.getFirst().run();

    assertThat(closed).containsExactly("steward, folder there: true");
    assertThat(dir).doesNotExist();
    assertThat(said.toString(StandardCharsets.UTF_8)).endsWith(" was removed\n");
  }

  /**
   * Regression: a stop while the demo opened its journal removed the folder under the opening,
   * which went on making files in it, and found nothing to close, the journal not yet handed over:
   * the folder was left behind. The stop now waits for the opening, closes what it opened, then
   * removes the folder.
   */
  @Test
  void aStopWhileTheJournalOpens_waitsForIt_closesIt_andRemovesTheFolder() throws Exception {
    Kept kept = new Kept();
    DemoStop stop = new DemoStop(kept, err);
    Path dir = folderWithAJournal();
    stop.make(() -> dir);
    CountDownLatch opening = new CountDownLatch(1);
    CountDownLatch stopRan = new CountDownLatch(1);
    List<String> closed = new CopyOnWriteArrayList<>();
    Thread hook = kept.hooks.getFirst();
    Thread demo =
        new Thread(
            () -> {
              try {
                stop.<AutoCloseable>open(
                    () -> {
                      opening.countDown();
                      // The stop, started now, must not run until this opening returns.
                      boolean ranMeanwhile = stopRan.await(200, TimeUnit.MILLISECONDS);
                      Files.writeString(dir.resolve("made-while-opening"), "z");
                      return () -> closed.add("journal, stop ran while opening: " + ranMeanwhile);
                    });
              } catch (Exception e) {
                closed.add("open failed: " + e);
              }
            });
    demo.start();
    opening.await();
    Thread stopper =
        new Thread(
            () -> {
              hook.run();
              stopRan.countDown();
            });
    stopper.start();
    demo.join(5_000);
    stopper.join(5_000);

    assertThat(closed).containsExactly("journal, stop ran while opening: false");
    assertThat(dir).doesNotExist();
  }

  /**
   * A stop before the demo opens its journal removes the folder; the opening then refuses, making
   * nothing in the folder (which would come back, and stay, where the opening made it).
   */
  @Test
  void anOpeningAfterAStop_isRefused_andMakesNothing() throws Exception {
    Kept kept = new Kept();
    DemoStop stop = new DemoStop(kept, err);
    Path dir = folderWithAJournal();
    stop.make(() -> dir);
    kept.hooks.getFirst().run();

    assertThatThrownBy(
            () ->
                stop.<AutoCloseable>open(
                    () -> {
                      Files.createDirectories(dir);
                      return () -> {};
                    }))
        .isInstanceOf(DemoStop.StoppedException.class);
    assertThat(dir).doesNotExist();
  }

  /**
   * Regression: a stop between the making of the demo's folder and the demo telling the stop of it
   * found no folder, said "stopped before it ended" and removed nothing: the folder stayed behind.
   * The stop now waits for the making, then removes the folder.
   */
  @Test
  void aStopWhileTheFolderIsMade_waitsForIt_andRemovesTheFolder() throws Exception {
    Kept kept = new Kept();
    DemoStop stop = new DemoStop(kept, err);
    CountDownLatch making = new CountDownLatch(1);
    CountDownLatch stopRan = new CountDownLatch(1);
    Thread hook = kept.hooks.getFirst();
    Thread stopper =
        new Thread(
            () -> {
              hook.run();
              stopRan.countDown();
            });
    List<Boolean> ranMeanwhile = new CopyOnWriteArrayList<>();
    Thread demo =
        new Thread(
            () -> {
              try {
                stop.make(
                    () -> {
                      Path dir = folderWithAJournal();
                      making.countDown();
                      // The stop, started now, must not run until the folder is the stop's.
                      try {
                        ranMeanwhile.add(stopRan.await(200, TimeUnit.MILLISECONDS));
                      } catch (InterruptedException e) {
                        throw new java.io.InterruptedIOException();
                      }
                      return dir;
                    });
              } catch (Exception e) {
                ranMeanwhile.add(true);
              }
            });
    demo.start();
    making.await();
    stopper.start();
    demo.join(5_000);
    stopper.join(5_000);

    assertThat(ranMeanwhile).containsExactly(false);
    assertThat(tmp.resolve("mesh-demo")).doesNotExist();
    assertThat(said.toString(StandardCharsets.UTF_8)).endsWith(" was removed\n");
  }

  /** A stop before the demo makes its folder: the making is refused, and makes nothing. */
  @Test
  void aFolderMadeAfterAStop_isRefused_andNothingIsMade() throws Exception {
    Kept kept = new Kept();
    DemoStop stop = new DemoStop(kept, err);
    kept.hooks.getFirst().run();

    assertThatThrownBy(() -> stop.make(this::folderWithAJournal))
        .isInstanceOf(DemoStop.StoppedException.class);
    assertThat(tmp.resolve("mesh-demo")).doesNotExist();
  }

  /**
   * Regression: a steward whose build failed left the demo's journal open (its file, lock and
   * threads) until the JVM exited; the folder was removed under it. The failed opening closes the
   * journal, its close's failure carried by the build's.
   */
  @Test
  void aStewardWhoseBuildFails_closesTheJournal() throws Exception {
    Kept kept = new Kept();
    DemoStop stop = new DemoStop(kept, err);
    stop.make(this::folderWithAJournal);
    List<String> closed = new ArrayList<>();
    stop.<AutoCloseable>open(
        () ->
            () -> {
              closed.add("journal");
              throw new IllegalStateException("the journal's close failed too");
            });

    assertThatThrownBy(
            () ->
                stop.<AutoCloseable>open(
                    () -> {
                      throw new IllegalArgumentException("no backend");
                    }))
        .hasMessage("no backend")
        .satisfies(
            e ->
                assertThat(e.getSuppressed())
                    .singleElement()
                    .hasFieldOrPropertyWithValue("message", "the journal's close failed too"));
    assertThat(closed).containsExactly("journal");
    kept.hooks.getFirst().run();
    assertThat(closed).as("closed once, not again by a stop").containsExactly("journal");
  }

  /**
   * A stop as the demo ends (the JVM already stopping runs the hook it could not take back) finds
   * the folder gone, and says nothing.
   */
  @Test
  void aStopAsTheDemoEnds_saysNothing() throws Exception {
    Kept kept = new Kept();
    DemoStop stop = new DemoStop(kept, err);
    Thread hook = kept.hooks.getFirst();
    stop.make(this::folderWithAJournal);

    stop.end();
    hook.run();

    assertThat(tmp.resolve("mesh-demo")).doesNotExist();
    assertThat(said.toString(StandardCharsets.UTF_8)).isEmpty();
  }

  private Path folderWithAJournal() throws java.io.IOException {
    Path dir = Files.createDirectories(tmp.resolve("mesh-demo/segments"));
    Files.writeString(dir.resolve("1.seg"), "x");
    Files.writeString(dir.resolveSibling("steward.journal"), "y");
    return dir.getParent();
  }
}
