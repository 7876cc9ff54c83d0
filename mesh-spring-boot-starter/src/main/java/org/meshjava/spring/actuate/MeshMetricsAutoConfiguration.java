package org.meshjava.spring.actuate;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import org.meshjava.metrics.StewardMetrics;
import org.meshjava.metrics.StewardObservations;
import org.meshjava.spring.MeshAutoConfiguration;
import org.meshjava.spring.MeshProperties;
import org.meshjava.spring.StewardBuilderCustomizer;
import org.meshjava.steward.Steward;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.context.annotation.Bean;

/**
 * Binds the steward to the application's Micrometer registries through {@code mesh-metrics}: its
 * {@link StewardMetrics} (serves, refusals, energy, grant spend, journal, meter, chain) on the
 * {@link MeterRegistry} Actuator provides, and one observation per serve ({@link
 * StewardObservations}) on the {@link ObservationRegistry}. Both are steward listeners, registered
 * on the builder before the steward is built. Needs {@code mesh-metrics} on the class path.
 */
@AutoConfiguration(
    before = MeshAutoConfiguration.class,
    afterName = {
      "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
      "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
      "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration"
    })
@ConditionalOnClass({StewardMetrics.class, MeterRegistry.class})
public class MeshMetricsAutoConfiguration {

  /** Creates the auto-configuration; Spring calls it. */
  public MeshMetricsAutoConfiguration() {}

  /** The steward's meters on {@code registry}. */
  @Bean
  @ConditionalOnBean(MeterRegistry.class)
  public StewardBuilderCustomizer meshStewardMetrics(
      MeterRegistry registry, MeshProperties properties) {
    StewardMetrics metrics =
        StewardMetrics.builder(registry).grantIdTags(properties.metricsGrantIdTags()).build();
    return new StewardBuilderCustomizer() {
      @Override
      public void customize(Steward.Builder builder) {
        builder.listener(metrics);
      }

      @Override
      public void built(Steward steward) {
        metrics.watch(steward);
      }
    };
  }

  /** One observation per serve, with its phases, on {@code registry}. */
  @Bean
  @ConditionalOnBean(ObservationRegistry.class)
  public StewardBuilderCustomizer meshStewardObservations(ObservationRegistry registry) {
    StewardObservations observations = new StewardObservations(registry);
    return builder -> builder.listener(observations);
  }
}
