export * from './report';
export * from './step';
export * from './simulation';
export * from './contact_frame';
export * from './ablation';
export * from './warm_start';
export * from './control_sequence';
