import { HttpServer, REQUEST_TIMEOUTS, STARTING_HOLD } from '../adapters/http/http-server.js';
import type { AppConfig } from './config.js';
import { StartupError } from './startup-error.js';

/** Binds HOST:PORT; a refusal becomes a StartupError naming the setting to change. */
export const listenHttp = async (config: AppConfig): Promise<HttpServer> => {
  try {
    return await HttpServer.listen(config.port, config.host, STARTING_HOLD, {
      headersMs: REQUEST_TIMEOUTS.headersMs,
      requestMs: config.requestTimeoutMs,
    });
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    const where = `${config.host}:${config.port}`;
    switch (code) {
      case 'EADDRINUSE':
        throw new StartupError('PORT', `${where} is already in use (EADDRINUSE); stop the other process or choose another PORT`, { cause: error });
      case 'EACCES':
        throw new StartupError(
          'PORT',
          `not allowed to listen on ${where} (EACCES; ports below 1024 need privileges): choose a PORT from 1024 up, behind a reverse proxy for 80 or 443`,
          { cause: error },
        );
      case 'EADDRNOTAVAIL':
        throw new StartupError(
          'HOST',
          `${config.host} is not an address of this machine (EADDRNOTAVAIL): use one of its addresses, 127.0.0.1 (this machine only) or 0.0.0.0 (every interface)`,
          { cause: error },
        );
      case 'ENOTFOUND':
      case 'EAI_AGAIN':
        throw new StartupError(
          'HOST',
          `${config.host} cannot be resolved (${code}): give an address of this machine, 127.0.0.1 (this machine only), 0.0.0.0 (every interface) or a name it resolves, such as localhost`,
          { cause: error },
        );
      default:
        throw new StartupError('PORT', `cannot listen on ${where} (${message})`, { cause: error });
    }
  }
};
