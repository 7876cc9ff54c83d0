package org.meshjava.spring.actuate;

import org.meshjava.spring.MeshAutoConfiguration;
import org.meshjava.steward.Steward;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;

/**
 * Registers the steward's {@link StewardHealthIndicator} as the health contributor {@code mesh}
 * (Actuator's {@code /actuator/health}), unless {@code management.health.mesh.enabled} is false.
 */
@AutoConfiguration(after = MeshAutoConfiguration.class)
@ConditionalOnClass(HealthIndicator.class)
@ConditionalOnEnabledHealthIndicator("mesh")
public class MeshHealthAutoConfiguration {

  /** Creates the auto-configuration; Spring calls it. */
  public MeshHealthAutoConfiguration() {}

  /** The steward's health. */
  @Bean
  @ConditionalOnBean(Steward.class)
  @ConditionalOnMissingBean(name = "meshHealthIndicator")
  public StewardHealthIndicator meshHealthIndicator(Steward steward) {
    return new StewardHealthIndicator(steward);
  }
}
