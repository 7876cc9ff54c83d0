package org.meshjava.energy;

import java.util.Objects;
import org.meshjava.core.EnergyDomain;

/**
 * A channel whose name and domain are fixed when it is built, as every hardware channel's are: the
 * subclass states only how it reads its counter.
 */
abstract class NamedChannel implements EnergyChannel {
  private final String name;
  private final EnergyDomain domain;

  NamedChannel(String name, EnergyDomain domain) {
    this.name = Objects.requireNonNull(name, "name");
    this.domain = Objects.requireNonNull(domain, "domain");
  }

  @Override
  public final String name() {
    return name;
  }

  @Override
  public final EnergyDomain domain() {
    return domain;
  }
}
