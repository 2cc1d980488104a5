//! Every effect a study can sweep: adding one is its module and one line here.

use super::SweptEffect;

/// The registered effects, in the order results and reports list them.
pub static EFFECTS: &[&dyn SweptEffect] = &[
    &super::drive::gear_efficiency::GearEfficiency,
    &super::drive::torque_constant_error::TorqueConstantError,
    &super::drive::current_bandwidth::CurrentBandwidth,
    &super::friction::lugre::Lugre,
    &super::friction::load_friction::LoadFriction,
    &super::friction::friction_drift::FrictionDrift,
    &super::mismatch::link_length_error::LinkLengthError,
    &super::mismatch::joint_offset_error::JointOffsetError,
    &super::rotor::armature::Armature,
    &super::current::current_delay::CurrentDelay,
    &super::current::anti_aliasing::AntiAliasing,
    &super::payload::Payload,
    &super::force_torque::ft_cross_talk::FtCrossTalk,
    &super::force_torque::ft_delay::FtDelay,
    &super::force_torque::ft_anti_aliasing::FtAntiAliasing,
    &super::rotor::elasticity::Elasticity,
    &super::rotor::backlash::Backlash,
    &super::encoder_resolution::EncoderResolution,
    &super::drive::cogging::CoggingTorque,
];
