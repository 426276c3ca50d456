import { HttpServer } from '../adapters/http/http-server.js';
import { StartupError } from './startup-error.js';
/** Binds HOST:PORT; a refusal becomes a StartupError naming the setting to change. */
export const listenHttp = async (config) => {
    try {
        return await HttpServer.listen(config.port, config.host);
    }
    catch (error) {
        const { code, message } = error;
        const where = `${config.host}:${config.port}`;
        switch (code) {
            case 'EADDRINUSE':
                throw new StartupError('PORT', `${where} is already in use (EADDRINUSE); stop the other process or choose another PORT`, { cause: error });
            case 'EACCES':
                throw new StartupError('PORT', `not allowed to listen on ${where} (EACCES; ports below 1024 need privileges)`, { cause: error });
            case 'EADDRNOTAVAIL':
                throw new StartupError('HOST', `${config.host} is not an address of this machine (EADDRNOTAVAIL)`, { cause: error });
            case 'ENOTFOUND':
            case 'EAI_AGAIN':
                throw new StartupError('HOST', `${config.host} cannot be resolved (${code})`, { cause: error });
            default:
                throw new StartupError('PORT', `cannot listen on ${where} (${message})`, { cause: error });
        }
    }
};
//# sourceMappingURL=listen-http.js.map