package org.meshjava.cli;

import picocli.CommandLine;

/**
 * What {@code mesh --version} prints: the version, then where the command's classes come from. The
 * {@code ./mesh} launcher runs the command as the named module {@code org.meshjava.cli} on the
 * module path, so every module's exports are enforced at run time; the second line says so, and the
 * launcher's test fails when it reads "class path" instead.
 */
public final class MeshVersion implements CommandLine.IVersionProvider {
  /** Creates the provider (picocli instantiates it). */
  public MeshVersion() {}

  @Override
  public String[] getVersion() {
    Module module = Mesh.class.getModule();
    return new String[] {
      "mesh-java 0.1.0",
      module.isNamed() ? "module path: " + module.getName() : "class path (no module boundaries)"
    };
  }
}
