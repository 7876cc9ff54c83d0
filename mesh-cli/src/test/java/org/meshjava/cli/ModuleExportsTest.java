package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.module.ModuleDescriptor;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Each mesh-java module exports to everyone its API and nothing else (ARCHITECTURE.md, "API and
 * internal packages"): an {@code ….internal} package, and mesh-core's CBOR value model, are
 * exported only {@code to} the modules that use them. Read from the module descriptors of the
 * modules this command runs as, so a {@code module-info} that exports one of them to all fails
 * here.
 */
class ModuleExportsTest {
  private static final String CBOR = "org.meshjava.core.cbor";

  private static List<ModuleDescriptor> ours() {
    return ModuleLayer.boot().modules().stream()
        .filter(m -> m.getName().startsWith("org.meshjava."))
        .map(Module::getDescriptor)
        .toList();
  }

  @Test
  void theTestSeesEveryModuleOfTheCommand_onTheModulePath() {
    assertThat(ModuleExportsTest.class.getModule().getName()).isEqualTo("org.meshjava.cli");
    assertThat(ours().stream().map(ModuleDescriptor::name))
        .contains(
            "org.meshjava.core",
            "org.meshjava.receipt",
            "org.meshjava.jcp",
            "org.meshjava.journal",
            "org.meshjava.steward",
            "org.meshjava.openai",
            "org.meshjava.conformance");
  }

  @Test
  void noModule_exportsAnInternalPackageOrTheCborModel_toAll() {
    for (ModuleDescriptor m : ours()) {
      for (ModuleDescriptor.Exports e : m.exports()) {
        if (!e.isQualified()) {
          assertThat(e.source())
              .as("%s exports %s to all", m.name(), e.source())
              .doesNotEndWith(".internal")
              .isNotEqualTo(CBOR);
        }
      }
    }
  }

  @Test
  void theCborModel_reachesOnlyTheModulesThatWorkInIt() {
    ModuleDescriptor core =
        ModuleLayer.boot().findModule("org.meshjava.core").orElseThrow().getDescriptor();
    Set<String> targets =
        core.exports().stream()
            .filter(e -> e.source().equals(CBOR))
            .flatMap(e -> e.targets().stream())
            .collect(Collectors.toSet());
    assertThat(targets)
        .containsExactlyInAnyOrder(
            "org.meshjava.receipt",
            "org.meshjava.jcp",
            "org.meshjava.journal",
            "org.meshjava.openai",
            "org.meshjava.conformance",
            "org.meshjava.cli");
  }
}
