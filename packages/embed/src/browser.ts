import { frameUrl, mountJourney } from './index.ts';

/** The integrator script as served at {journey_url}/embed.js: `IdvJourney.mount({...})`. */
(window as unknown as { IdvJourney: unknown }).IdvJourney = { mount: mountJourney, frameUrl };
