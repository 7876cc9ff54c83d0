package org.meshjava.conformance.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.module.ModuleDescriptor;
import org.junit.jupiter.api.Test;

/**
 * The commitment vector's tiny model is a fixture of this module's generators, not API: its package
 * is exported to no module, so no caller of mesh-conformance can come to depend on it.
 */
class TinyModelPlacementTest {
  @Test
  void theTinyModel_sitsInAPackageThisModuleExportsToNone() {
    Module module = TinyModel.class.getModule();
    assertThat(module.isNamed()).as("the tests run on the module path").isTrue();
    ModuleDescriptor descriptor = module.getDescriptor();
    assertThat(descriptor.exports())
        .extracting(ModuleDescriptor.Exports::source)
        .contains("org.meshjava.conformance")
        .doesNotContain(TinyModel.class.getPackageName());
  }
}
