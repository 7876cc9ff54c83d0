package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The launcher reached through a symbolic link works in the checkout its file is in: a link to the
 * launcher itself ({@code ln -s ~/mesh-java/mesh ~/bin/mesh}), or a checkout folder reached as a
 * link ({@code ~/mesh -> /data/mesh-java}). The build is a stand-in {@code mvnw} and the JDK a
 * stand-in whose {@code java} writes down its arguments, so nothing real is built or started.
 */
class LauncherReachedThroughLinkTest {
  @TempDir Path root;

  /**
   * Regression: the launcher looked for the build beside the link, so the module path named {@code
   * bin/mesh-cli/target/mesh-cli.jar}, where there is none.
   */
  @Test
  void aLinkToTheLauncher_runsTheCommandOfTheCheckoutItLinksTo() throws Exception {
    Path checkout = Files.createDirectories(root.resolve("checkout"));
    Path bin = Files.createDirectories(root.resolve("bin"));
    Files.copy(Path.of("..", "mesh").toAbsolutePath().normalize(), checkout.resolve("mesh"));
    Files.createSymbolicLink(bin.resolve("mesh"), Path.of("../checkout/mesh"));
    // javaArguments runs root/mesh: here a link to the link, two hops from the launcher's file.
    Files.createSymbolicLink(root.resolve("mesh"), bin.resolve("mesh"));
    List<String> args = LauncherCopy.javaArguments(root, Map.of(), "--version");
    assertThat(args.get(args.indexOf("-p") + 1))
        .startsWith(checkout.toRealPath().resolve("mesh-cli/target/mesh-cli.jar") + ":");
  }

  /**
   * Regression: a relative link's {@code ..} was taken by bash's logical {@code cd}, which drops
   * the name before it, not from where the link is on disk: with {@code bin} itself a link (as GNU
   * Stow makes), {@code bin/mesh -> ../checkout/mesh} ran from {@code home/checkout}, another
   * folder.
   */
  @Test
  void aRelativeLinkInALinkedFolder_runsTheCheckoutTheKernelReaches() throws Exception {
    Path dotfiles = Files.createDirectories(root.resolve("dotfiles"));
    Path checkout = Files.createDirectories(root.resolve("dotfiles/checkout"));
    Files.copy(Path.of("..", "mesh").toAbsolutePath().normalize(), checkout.resolve("mesh"));
    Files.createDirectories(dotfiles.resolve("bin"));
    Files.createSymbolicLink(dotfiles.resolve("bin/mesh"), Path.of("../checkout/mesh"));
    Path home = Files.createDirectories(root.resolve("home"));
    Files.createSymbolicLink(home.resolve("bin"), Path.of("../dotfiles/bin"));
    // Where bash's logical ".." led: an older clone, say.
    Files.createDirectories(home.resolve("checkout"));
    Files.createSymbolicLink(root.resolve("mesh"), Path.of("home/bin/mesh"));
    List<String> args = LauncherCopy.javaArguments(root, Map.of(), "--version");
    assertThat(args.get(args.indexOf("-p") + 1))
        .startsWith(checkout.toRealPath().resolve("mesh-cli/target/mesh-cli.jar") + ":");
  }

  /**
   * Regression: with the checkout reached through a link, find looked for edited sources under the
   * link without descending into it, so an edit went unseen and the last build ran without a word.
   */
  @Test
  void aCheckoutReachedThroughALink_seesAnEditedSource() throws Exception {
    Path real = Files.createDirectories(root.resolve("real"));
    LauncherCopy.unbuiltTreeWithStandInBuild(real);
    Map<String, String> env =
        Map.of("JAVA_HOME", System.getProperty("java.home"), "MESH_NO_BUILD", "");
    assertThat(LauncherCopy.run(real, env, "--version").out()).contains("mesh: building mesh-cli");
    Path link = Files.createSymbolicLink(root.resolve("link"), real);
    assertThat(LauncherCopy.run(link, env, "--version").out()).doesNotContain("building");
    // An edit after the build (dated ahead, so that it is newer whatever the file system's clock).
    Files.setLastModifiedTime(
        real.resolve("mesh-cli/src/main/java/Source.java"),
        FileTime.from(Instant.now().plusSeconds(60)));
    assertThat(LauncherCopy.run(link, env, "--version").out()).contains("mesh: building mesh-cli");
  }
}
