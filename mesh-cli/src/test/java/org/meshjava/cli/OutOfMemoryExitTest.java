package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.cli.MeshCommandTest.Run;

/**
 * Regression: the JVM running out of memory as {@code mesh serve} started (a model larger than the
 * heap) exited 70 as "internal error (a bug in mesh; please report it …)". A resource limit is no
 * bug: it exits {@link Mesh#EXIT_RESOURCE} in one line saying which memory ran out and which
 * setting gives more, {@code MESH_JAVA_OPTS} through the launcher included.
 */
class OutOfMemoryExitTest {
  @TempDir Path tmp;

  @Test
  void outOfMemoryAsTheStewardStarts_isALimitToRaise() throws Exception {
    Run r =
        ServeStartErrorTest.serveThrowing(
            tmp.resolve("new.journal"), new OutOfMemoryError("Java heap space"));

    assertThat(r.code()).as(r.err()).isEqualTo(Mesh.EXIT_RESOURCE);
    String said = r.err().lines().filter(l -> l.startsWith("mesh serve: ")).findFirst().orElse("");
    assertThat(said)
        .as(r.err())
        .startsWith("mesh serve: out of memory (Java heap space), a limit of this machine or JVM")
        .contains("not a bug in mesh")
        .contains("give it more with -Xmx")
        .contains("MESH_JAVA_OPTS=-Xmx8g")
        .doesNotContain("internal error");
  }

  /**
   * Out of memory on another thread (a model loaded in parallel) reaches the command inside what
   * carried it across, and is said as out of memory all the same.
   */
  @Test
  void outOfMemoryOnAnotherThread_isStillALimitToRaise() throws Exception {
    Run r =
        ServeStartErrorTest.serveThrowing(
            tmp.resolve("new.journal"),
            new java.util.concurrent.CompletionException(new OutOfMemoryError("Java heap space")));
    assertThat(r.code()).as(r.err()).isEqualTo(Mesh.EXIT_RESOURCE);
    assertThat(r.err()).contains("mesh serve: out of memory (Java heap space)");
  }

  /**
   * Regression: an array longer than the JVM allows ("Requested array size exceeds VM limit", which
   * no heap size lifts) exited 71 telling the operator to raise -Xmx, which changes nothing. Mesh
   * asked for it where it should have refused its input: a bug, said and exited as one.
   */
  @Test
  void anArrayOverTheJvmsLimit_isABug_notAHeapToRaise() throws Exception {
    Run r =
        ServeStartErrorTest.serveThrowing(
            tmp.resolve("new.journal"),
            new OutOfMemoryError("Requested array size exceeds VM limit"));
    assertThat(r.code()).as(r.err()).isEqualTo(Mesh.EXIT_INTERNAL);
    assertThat(r.err()).contains("internal error (a bug in mesh").doesNotContain("heap");
  }

  /**
   * Regression: the compressed class space running out ("Compressed class space", a part of
   * Metaspace with a limit of its own) was told to raise the heap with -Xmx.
   */
  @Test
  void theCompressedClassSpace_namesItsOwnSetting() {
    assertThat(Mesh.outOfMemory(new OutOfMemoryError("Compressed class space")))
        .contains("-XX:CompressedClassSpaceSize")
        .doesNotContain("heap");
  }

  /** Each kind of memory the JVM runs out of is named with the setting that gives more of it. */
  @Test
  void eachKindOfMemory_namesItsOwnSetting() {
    assertThat(
            Mesh.outOfMemory(
                new OutOfMemoryError(
                    "unable to create native thread: possibly out of memory or process/resource"
                        + " limits reached")))
        .contains("ulimit -u")
        .doesNotContain("-Xmx");
    assertThat(
            Mesh.outOfMemory(
                new OutOfMemoryError("Cannot reserve 1024 bytes of direct buffer memory")))
        .contains("-XX:MaxDirectMemorySize");
    assertThat(Mesh.outOfMemory(new OutOfMemoryError("Metaspace")))
        .contains("-XX:MaxMetaspaceSize");
    assertThat(Mesh.outOfMemory(new OutOfMemoryError()))
        .startsWith("out of memory, a limit of this machine or JVM")
        .contains("heap may grow to " + Runtime.getRuntime().maxMemory() / (1024 * 1024) + " MiB");
  }
}
