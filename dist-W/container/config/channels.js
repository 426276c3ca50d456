import { CHANNEL_BINDINGS } from '../channels/index.js';
import { environment } from './fields.js';
/** Every messaging channel's variables, each channel's schema from its binding. */
export const channelsSchema = environment().transform((env, ctx) => {
    const channels = {};
    for (const binding of CHANNEL_BINDINGS) {
        const result = binding.schema.safeParse(env);
        if (result.success)
            channels[binding.id] = result.data;
        else
            for (const issue of result.error.issues)
                ctx.addIssue({ code: 'custom', path: issue.path, message: issue.message });
    }
    return { channels: channels };
});
//# sourceMappingURL=channels.js.map